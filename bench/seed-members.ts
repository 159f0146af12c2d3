/**
 * Loads N realistic members into an account, fast, on either engine: multi-row inserts of a
 * thousand members, ten thousand per transaction. Members get plausible logins and e-mails,
 * four profile fields (first_name, last_name, city, phone), and a mix of states: ~10% paid
 * (with billing ids), ~3% suspended, ~5% deleted within the last 20 days (inside the default
 * retention), registrations spread over three years in id order.
 *
 * Every seeded member has the password SEEDED_PASSWORD (one argon2id hash, shared: hashing a
 * million passwords would take hours and prove nothing here).
 *
 *   DATABASE_URL=… npx tsx bench/seed-members.ts --account bench --count 1000000
 */
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { fileURLToPath } from 'node:url';
import { AccountsService } from '../src/accounts/accounts-service.js';
import { createArgon2Hasher } from '../src/auth/passwords.js';
import { loadConfig } from '../src/config.js';
import { foldKey, type MemberStatus, type RegType } from '../src/members/member.js';
import { valueKeyOf } from '../src/store/member-updates.js';
import { connect } from '../src/store/connect.js';
import { openStore, type Store } from '../src/store/store.js';

export const SEEDED_PASSWORD = 'seeded-password';

const FIRST = [
  'james',
  'mary',
  'robert',
  'patricia',
  'john',
  'jennifer',
  'michael',
  'linda',
  'david',
  'elizabeth',
  'william',
  'barbara',
  'richard',
  'susan',
  'joseph',
  'jessica',
  'thomas',
  'sarah',
  'charles',
  'karen',
  'léa',
  'jürgen',
  'søren',
  'zoë',
  'mateo',
  'yuki',
  'amara',
  'ivan',
  'chloé',
  'noah',
];
const LAST = [
  'smith',
  'johnson',
  'williams',
  'brown',
  'jones',
  'garcia',
  'miller',
  'davis',
  'rodriguez',
  'martinez',
  'hernandez',
  'lopez',
  'gonzalez',
  'wilson',
  'anderson',
  'thomas',
  'taylor',
  'moore',
  'jackson',
  'martin',
  'müller',
  'dubois',
  'rossi',
  'nakamura',
  'kowalski',
  'silva',
  'novak',
  'haddad',
  'okafor',
  'larsen',
];
const CITIES = [
  'London',
  'Paris',
  'Berlin',
  'Madrid',
  'Rome',
  'Lisbon',
  'Dublin',
  'Vienna',
  'Prague',
  'Warsaw',
  'Oslo',
  'Zürich',
  'Kraków',
  'São Paulo',
  'Tokyo',
  'Toronto',
  'Austin',
  'Nairobi',
  'Lagos',
  'Sydney',
];
const DOMAINS = ['example.com', 'mail.example.org', 'inbox.example.net', 'corp.example.io'];

/** A small deterministic generator, so that the same N gives the same members. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SeedOptions {
  readonly count: number;
  /** The first member's number: seeding twice with different starts gives distinct logins. */
  readonly start?: number;
  readonly now?: number;
  readonly onProgress?: (done: number) => void;
}

export interface SeededMember {
  readonly login: string;
  readonly email: string;
  readonly city: string;
  readonly phone: string;
}

/** The member number `i` would get: the same function the seeder uses. */
export function seededMember(i: number): SeededMember {
  const next = random(i * 7919 + 17);
  const first = FIRST[Math.floor(next() * FIRST.length)]!;
  const last = LAST[Math.floor(next() * LAST.length)]!;
  return {
    login: `${first}.${last}${i}`,
    email: `${first}.${last}${i}@${DOMAINS[i % DOMAINS.length]}`,
    city: CITIES[Math.floor(next() * CITIES.length)]!,
    phone: `+44 20 ${String(i)
      .padStart(8, '0')
      .replace(/(\d{4})(\d{4})/, '$1 $2')}`,
  };
}

/**
 * The status the seeder gives member number `i`: about 92% Active, 3% Suspended, 5% Deleted.
 * Only an Active member's login succeeds.
 */
export function seededStatus(i: number): MemberStatus {
  const roll = (i * 2654435761) % 100;
  return roll >= 95 ? 'D' : roll >= 92 ? 'S' : 'A';
}

/** A random Active member of the first `count` seeded (one whose login succeeds). */
export function activeSeededMember(count: number): SeededMember {
  for (;;) {
    const i = 1 + Math.floor(Math.random() * (count - 1));
    if (seededStatus(i) === 'A') return seededMember(i);
  }
}

const BATCH = 1000;
const BATCHES_PER_TRANSACTION = 10;
const THREE_YEARS = 3 * 365 * 86_400_000;

export async function seedMembers(databaseUrl: string, accountId: number, options: SeedOptions): Promise<void> {
  const passwordHash = await createArgon2Hasher().hash(SEEDED_PASSWORD);
  const now = options.now ?? Date.now();
  const start = options.start ?? 0;
  const connection = connect(databaseUrl);
  try {
    // Random-order keys (logins, e-mails, trigrams) make every insert touch pages all over the
    // indexes: SQLite's default 2 MB page cache turns that into a read per row. A bulk load
    // may keep them all in memory.
    if (connection.engine === 'sqlite') await sql`pragma cache_size = -2000000`.execute(connection.db);
    for (let offset = 0; offset < options.count; offset += BATCH * BATCHES_PER_TRANSACTION) {
      await connection.db.transaction().execute(async (trx) => {
        for (let batch = offset; batch < Math.min(offset + BATCH * BATCHES_PER_TRANSACTION, options.count); batch += BATCH) {
          const rows = [];
          const profiles = new Map<string, Array<[string, string]>>();
          for (let n = batch; n < Math.min(batch + BATCH, options.count); n++) {
            const i = start + n;
            const member = seededMember(i);
            const roll = (i * 2654435761) % 100;
            const paid = roll < 10;
            const status = seededStatus(i);
            const regAt = now - THREE_YEARS + Math.floor((n / options.count) * THREE_YEARS);
            rows.push({
              account_id: accountId,
              login: member.login,
              login_key: foldKey(member.login),
              email: member.email,
              email_key: foldKey(member.email),
              password_hash: passwordHash,
              status,
              reg_type: (paid ? 'P' : roll % 2 === 0 ? 'F' : 'A') as RegType,
              reg_at: regAt,
              deleted_at: status === 'D' ? now - (i % 20) * 86_400_000 : null,
              bill_pc: paid ? 'paypal' : null,
              bill_id: paid ? `TX-${i}` : null,
              bill_subscr: paid ? `I-SUB-${i}` : null,
              bill_item: paid ? 'gold' : null,
              updated_at: regAt,
            });
            const [first, rest] = member.login.split('.') as [string, string];
            profiles.set(member.login, [
              ['first_name', first[0]!.toUpperCase() + first.slice(1)],
              ['last_name', rest.replace(/\d+$/, '')],
              ['city', member.city],
              ['phone', member.phone],
            ]);
          }
          const inserted = await trx.insertInto('members').values(rows).returning(['id', 'login']).execute();
          const fields = inserted.flatMap(({ id, login }) =>
            (profiles.get(login) ?? []).map(([name, value]) => ({ member_id: id, account_id: accountId, name, value, value_key: valueKeyOf(value) })),
          );
          await trx.insertInto('member_fields').values(fields).execute();
        }
      });
      options.onProgress?.(Math.min(offset + BATCH * BATCHES_PER_TRANSACTION, options.count));
    }
    // A server that starts on this database finds statistics for its query planner, and on
    // PostgreSQL no autovacuum of a million fresh rows competing with what is measured next.
    await (connection.engine === 'postgres' ? sql`vacuum (analyze)` : sql`analyze`).execute(connection.db);
  } finally {
    await connection.close();
  }
}

/** The account named `name`, created when missing; its key is printed when created. */
export async function ensureAccount(store: Store, name: string): Promise<{ id: number; apiKey?: string }> {
  const accounts = new AccountsService(store.accounts, Date.now);
  const found = await accounts.find(name);
  if (found) return { id: found.id };
  const created = await accounts.create(name);
  if (created.kind !== 'created') throw new Error(`cannot create account ${name}: ${created.kind}`);
  return { id: created.account.id, apiKey: created.apiKey };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { account: { type: 'string', default: 'bench' }, count: { type: 'string', default: '100000' }, start: { type: 'string', default: '0' } },
  });
  const count = Number(values.count);
  const { databaseUrl } = loadConfig();
  const store = openStore(databaseUrl);
  await store.migrate();
  const account = await ensureAccount(store, values.account!);
  await store.close();
  if (account.apiKey) process.stdout.write(`created account ${values.account} api_key=${account.apiKey}\n`);
  const started = Date.now();
  await seedMembers(databaseUrl, account.id, {
    count,
    start: Number(values.start),
    onProgress: (done) => process.stderr.write(`\r${done} / ${count}`),
  });
  const seconds = (Date.now() - started) / 1000;
  process.stdout.write(`\nseeded ${count} members in ${seconds.toFixed(1)} s (${Math.round(count / seconds)} members/s); password: ${SEEDED_PASSWORD}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
