import { Migrator, type Migration } from 'kysely';
import type { EngineConnection, Engine } from '../dialects/dialect.js';
import * as initial from './001-initial.js';
import * as search from './002-search.js';
import * as accountRateLimit from './003-account-rate-limit.js';
import * as rateLimits from './004-rate-limits.js';
import * as memberCounts from './005-member-counts.js';
import * as keysAndLimits from './006-keys-and-limits.js';
import * as upstreamLinks from './007-upstream-links.js';
import * as events from './008-events.js';
import * as webhooks from './009-webhooks.js';
import * as eventSettings from './010-event-settings.js';
import * as sessionsAndMail from './012-sessions-and-mail.js';
import * as operators from './011-operators.js';
import * as eventOutbox from './013-event-outbox.js';
import * as outboxWithoutAccountLock from './014-outbox-without-account-lock.js';
import * as sessionFields from './015-session-fields.js';
import * as webhookNames from './016-webhook-names.js';
import * as hostedTolerances from './017-hosted-tolerances.js';
import * as memberPages from './018-member-pages.js';
import * as operatorTwoStep from './019-operator-two-step.js';
import * as bulkUpdatedMembers from './020-bulk-updated-members.js';
import * as activityCounts from './021-activity-counts.js';
import * as actorNames from './022-actor-names.js';
import * as memberSearch from './023-member-search.js';
import * as memberKeys from './024-member-keys.js';
import * as operatorMail from './025-operator-mail.js';
import * as accountNamesAndAddresses from './026-account-names-and-addresses.js';
import * as fieldTexts from './027-field-texts.js';
import * as keyPrefixes from './028-key-prefixes.js';
import * as registrationLanguage from './029-registration-language.js';
import * as operatorAdministrator from './030-operator-administrator.js';
import * as billing from './031-billing.js';
import * as pendingNotices from './032-pending-notices.js';
import * as membersFillfactor from './033-members-fillfactor.js';

type EngineMigration = { up(db: Parameters<Migration['up']>[0], engine: Engine): Promise<void> };

/** Every migration, in order. Names are never changed once released. */
const MIGRATIONS: Record<string, EngineMigration> = {
  '001-initial': initial,
  '002-search': search,
  '003-account-rate-limit': accountRateLimit,
  '004-rate-limits': rateLimits,
  '005-member-counts': memberCounts,
  '006-keys-and-limits': keysAndLimits,
  '007-upstream-links': upstreamLinks,
  '008-events': events,
  '009-webhooks': webhooks,
  '010-event-settings': eventSettings,
  '011-operators': operators,
  '012-sessions-and-mail': sessionsAndMail,
  '013-event-outbox': eventOutbox,
  '014-outbox-without-account-lock': outboxWithoutAccountLock,
  '015-session-fields': sessionFields,
  '016-webhook-names': webhookNames,
  '017-hosted-tolerances': hostedTolerances,
  '018-member-pages': memberPages,
  '019-operator-two-step': operatorTwoStep,
  '020-bulk-updated-members': bulkUpdatedMembers,
  '021-activity-counts': activityCounts,
  '022-actor-names': actorNames,
  '023-member-search': memberSearch,
  '024-member-keys': memberKeys,
  '025-operator-mail': operatorMail,
  '026-account-names-and-addresses': accountNamesAndAddresses,
  '027-field-texts': fieldTexts,
  '028-key-prefixes': keyPrefixes,
  '029-registration-language': registrationLanguage,
  '030-operator-administrator': operatorAdministrator,
  '031-billing': billing,
  '032-pending-notices': pendingNotices,
  '033-members-fillfactor': membersFillfactor,
};

/** Brings the schema to the latest version; Kysely's migrator serialises concurrent runs. */
export async function migrateToLatest(connection: EngineConnection): Promise<string[]> {
  const migrations: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (db) => migration.up(db, connection.engine) };
  }
  const migrator = new Migrator({
    db: connection.db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error;
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
