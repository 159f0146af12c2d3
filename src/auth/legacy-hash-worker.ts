/** The worker thread that verifies foreign password hashes (see verifyLegacyHashOffThread). */
import { serveRequests } from '../common/worker-pool.js';
import { verifyLegacyHash } from './legacy-hashes.js';

serveRequests(({ hash, password }: { hash: string; password: string }) => verifyLegacyHash(hash, password));
