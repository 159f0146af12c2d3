// The instrumented store of docs/sharding.md: loaded into every Node.js process of a test run
// (NODE_OPTIONS="--import ./scripts/shard-check.mjs", as scripts/shard-check.sh does, so that
// servers and commands started by the tests have it too), it watches every statement sent to
// PostgreSQL and records, in SHARD_CHECK_LOG, each one that touches a table distributed by
// account without naming the account: neither `account_id = $n` (or `in`, `= any`) in its
// conditions, nor `account_id` among an insert's columns. With SHARD_CHECK=fail such a
// statement also fails, as Citus would refuse to route it to one shard.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pg = require('pg');

/** The tables docs/sharding.md distributes by account_id. */
const DISTRIBUTED = [
  'members',
  'member_fields',
  'sessions',
  'login_events',
  'login_failures',
  'events',
  'event_outbox',
  'event_counters',
  'member_counts',
  'member_count_deltas',
  'bulk_updated_members',
  'member_search',
  'pending_registrations',
  'reset_links',
];
const TOUCHES = new RegExp(`\\b(?:from|join|update|into)\\s+(?:only\\s+)?"?(${DISTRIBUTED.join('|')})"?(?:\\s|$|\\(|,|\\))`, 'gi');
const NAMES_ACCOUNT = /account_id"?\s*(?:=|\bin\b|=\s*any)\s*\(?\s*(?:\$\d+|\d+)/i;
const INSERTS_ACCOUNT = /insert\s+into\s+"?\w+"?\s*\([^)]*\baccount_id\b/i;
const log = process.env.SHARD_CHECK_LOG;
const fail = process.env.SHARD_CHECK === 'fail';

function check(text) {
  if (typeof text !== 'string') return;
  const tables = [...text.matchAll(TOUCHES)].map((match) => match[1].toLowerCase());
  if (tables.length === 0 || NAMES_ACCOUNT.test(text) || INSERTS_ACCOUNT.test(text)) return;
  // Where it came from: the first frame in the project's own code.
  const origin = (new Error().stack ?? '')
    .split('\n')
    .find((line) => /\/(src|dist)\//.test(line) && !line.includes('node_modules') && !line.includes('/dialects/'));
  const entry = { tables: [...new Set(tables)], sql: text.replace(/\s+/g, ' ').trim(), origin: origin?.trim().replace(/^at /, '') };
  if (log) appendFileSync(log, `${JSON.stringify(entry)}\n`);
  if (fail) throw new Error(`not routable to one shard (no account_id): ${entry.sql}`);
}

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config, ...rest) {
  check(typeof config === 'string' ? config : config?.text);
  return query.call(this, config, ...rest);
};
