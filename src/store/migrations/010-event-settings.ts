import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Settings of the events issue, per account: `member.login` events (off unless asked for),
 * and how long before a time expiration `member.expiring` is written (0: never). On members,
 * the expiration instant a warning was written for, so that each expiration is warned of once
 * (a new expiration, set later, is warned of again).
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('emit_login_events', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('expiry_warning_seconds', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('members').addColumn('exp_warned_at', 'bigint').execute();
  // The expirations not warned of yet, by account and time: the sweep's look-up reads only
  // those (one already warned of is never read again), whatever the warning period.
  await sql`create index members_exp_unwarned on members (account_id, exp_time_at)
    where status = 'A' and exp_time_at is not null and ${unwarned(engine)}`.execute(db);
}

/** Whether a member's expiration has not been warned of (the sweep's query uses the same words, for the planner). */
export function unwarned(engine: Engine): RawBuilder<SqlBool> {
  return engine === 'sqlite' ? sql<SqlBool>`exp_warned_at is not exp_time_at` : sql<SqlBool>`exp_warned_at is distinct from exp_time_at`;
}
