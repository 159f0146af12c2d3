import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * The members each bulk update changed (an update of every member, or of the console's
 * filter), by the instant of its one `member.bulk_updated` event: a member's history shows the
 * bulk changes it was part of. No foreign key (a bulk update writes a row per member, and a
 * check each would slow it); member ids are never reused, and the rows go with the events'
 * retention.
 */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema
    .createTable('bulk_updated_members')
    .addColumn('member_id', 'bigint', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('bulk_updated_members_pk', ['member_id', 'at'])
    .execute();
  await db.schema.createIndex('bulk_updated_members_at').on('bulk_updated_members').column('at').execute();
}
