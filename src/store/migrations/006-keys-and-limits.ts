import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Audit round 2:
 * - API keys move to a table of their own: several named keys per account, each with a
 *   scope, an expiry and its last use (the account's key becomes the one named `default`);
 * - accounts get a budget for logins without a key and a storage quota;
 * - failed logins are counted per member and client scope (an IPv4 address, an IPv6 /64,
 *   none, or every address together: '*'), and for logins that name no member too (member
 *   0), so that every failed login does the same store work. The old per-exact-address
 *   counters are dropped: a lock in force is lifted by the upgrade;
 * - SQLite's search index is scoped by account;
 * - the bytes of profile values each account holds are counted, for its storage quota.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', engine === 'sqlite' ? 'integer' : 'bigint', (c) =>
      engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
    )
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull().unique())
    .addColumn('scope', 'text', (c) => c.notNull().check(sql`scope in ('all', 'read', 'login')`))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').columns(['account_id', 'id']).execute();
  await sql`insert into api_keys (account_id, name, digest, scope, created_at) select id, 'default', api_key_digest, 'all', created_at from accounts`.execute(
    db,
  );
  await db.schema.alterTable('accounts').dropColumn('api_key_digest').execute();

  await db.schema
    .alterTable('accounts')
    .addColumn('login_rate_limit_per_minute', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('storage_quota_mb', 'integer', (c) => c.notNull().defaultTo(1024))
    .execute();

  await db.schema.dropTable('login_throttle').execute();
  await db.schema
    .createTable('login_failures')
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('member_id', 'bigint', (c) => c.notNull())
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_at', 'bigint', (c) => c.notNull())
    .addColumn('locked_until', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('login_failures_pk', ['account_id', 'member_id', 'scope'])
    .execute();
  await db.schema.createIndex('login_failures_last_failure').on('login_failures').column('last_failure_at').execute();

  if (engine === 'sqlite') await scopeSearchByAccount(db);
  await trackProfileBytes(db, engine);
}

/**
 * The bytes of profile values each account holds (for its storage quota), kept by triggers
 * in the same transactions as the values, as the member counters of migration 005 are: in
 * place on SQLite (one writer), as deltas on PostgreSQL (folded by the sweep, so that
 * concurrent writers never queue on one counter row).
 */
async function trackProfileBytes(db: Kysely<any>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('account_usage')
    .addColumn('account_id', 'bigint', (c) => c.primaryKey())
    .addColumn('profile_bytes', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('account_usage_deltas')
    .addColumn('id', engine === 'sqlite' ? 'integer' : 'bigint', (c) =>
      engine === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity(),
    )
    .addColumn('account_id', 'bigint', (c) => c.notNull())
    .addColumn('profile_bytes', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('account_usage_deltas_account').on('account_usage_deltas').column('account_id').execute();

  if (engine === 'sqlite') {
    const bytes = (row: string) => `length(cast(${row}.value as blob))`;
    const add = (account: string, delta: string) =>
      `insert into account_usage (account_id, profile_bytes) values (${account}, ${delta})
         on conflict (account_id) do update set profile_bytes = profile_bytes + excluded.profile_bytes;`;
    for (const statement of [
      `insert into account_usage (account_id, profile_bytes) select account_id, sum(${bytes('member_fields')}) from member_fields group by account_id`,
      `create trigger account_usage_insert after insert on member_fields begin ${add('new.account_id', bytes('new'))} end`,
      `create trigger account_usage_update after update of value on member_fields begin ${add('new.account_id', `${bytes('new')} - ${bytes('old')}`)} end`,
      `create trigger account_usage_delete after delete on member_fields begin ${add('old.account_id', `-${bytes('old')}`)} end`,
    ]) {
      await sql.raw(statement).execute(db);
    }
    return;
  }
  for (const statement of [
    `insert into account_usage (account_id, profile_bytes) select account_id, sum(octet_length(value)) from member_fields group by account_id`,
    `create function account_usage_inserted() returns trigger language plpgsql as $$ begin
       insert into account_usage_deltas (account_id, profile_bytes) select account_id, sum(octet_length(value)) from new_fields group by account_id;
       return null;
     end $$`,
    `create function account_usage_deleted() returns trigger language plpgsql as $$ begin
       insert into account_usage_deltas (account_id, profile_bytes) select account_id, -sum(octet_length(value)) from old_fields group by account_id;
       return null;
     end $$`,
    `create function account_usage_updated() returns trigger language plpgsql as $$ begin
       insert into account_usage_deltas (account_id, profile_bytes)
         select account_id, sum(n) from (
           select account_id, octet_length(value) as n from new_fields
           union all
           select account_id, -octet_length(value) from old_fields
         ) changes group by account_id having sum(n) <> 0;
       return null;
     end $$`,
    `create trigger account_usage_insert after insert on member_fields referencing new table as new_fields
       for each statement execute function account_usage_inserted()`,
    `create trigger account_usage_delete after delete on member_fields referencing old table as old_fields
       for each statement execute function account_usage_deleted()`,
    `create trigger account_usage_update after update on member_fields referencing old table as old_fields new table as new_fields
       for each statement execute function account_usage_updated()`,
  ]) {
    await sql.raw(statement).execute(db);
  }
}

/**
 * SQLite's search index, scoped by account: the FTS5 tables hold each value's trigrams as
 * words that name the account (see `accountTrigrams` in the SQLite dialect), so that a search
 * reads only its own account's index. PostgreSQL's pg_trgm indexes are unchanged (a GIN
 * posting list per trigram); there the index is filtered by account as it is read.
 */
export async function scopeSearchByAccount(db: Kysely<any>): Promise<void> {
  const statements = [
    'drop trigger members_fts_insert',
    'drop trigger members_fts_update',
    'drop trigger members_fts_delete',
    'drop trigger member_fields_fts_insert',
    'drop trigger member_fields_fts_update',
    'drop trigger member_fields_fts_delete',
    'drop table members_fts',
    'drop table member_fields_fts',
    `create virtual table members_fts using fts5(login, email, content='', contentless_delete=1, tokenize='ascii')`,
    `insert into members_fts (rowid, login, email) select id, account_trigrams(account_id, login_key), account_trigrams(account_id, email_key) from members`,
    `create trigger members_fts_insert after insert on members begin
       insert into members_fts (rowid, login, email) values (new.id, account_trigrams(new.account_id, new.login_key), account_trigrams(new.account_id, new.email_key));
     end`,
    `create trigger members_fts_update after update of login_key, email_key on members begin
       delete from members_fts where rowid = old.id;
       insert into members_fts (rowid, login, email) values (new.id, account_trigrams(new.account_id, new.login_key), account_trigrams(new.account_id, new.email_key));
     end`,
    `create trigger members_fts_delete after delete on members begin
       delete from members_fts where rowid = old.id;
     end`,
    `create virtual table member_fields_fts using fts5(value, content='', contentless_delete=1, tokenize='ascii')`,
    `insert into member_fields_fts (rowid, value) select rowid, account_trigrams(account_id, coalesce(value_key, value)) from member_fields`,
    `create trigger member_fields_fts_insert after insert on member_fields begin
       insert into member_fields_fts (rowid, value) values (new.rowid, account_trigrams(new.account_id, coalesce(new.value_key, new.value)));
     end`,
    `create trigger member_fields_fts_update after update of value, value_key on member_fields begin
       delete from member_fields_fts where rowid = old.rowid;
       insert into member_fields_fts (rowid, value) values (new.rowid, account_trigrams(new.account_id, coalesce(new.value_key, new.value)));
     end`,
    `create trigger member_fields_fts_delete after delete on member_fields begin
       delete from member_fields_fts where rowid = old.rowid;
     end`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
