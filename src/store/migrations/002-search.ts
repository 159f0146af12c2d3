import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * Substring search (/list/'s login, email, profile and profile:<field> filters) served by
 * trigram indexes over the folded values, so that a selective filter over a million members
 * reads a few index pages instead of every row.
 *
 * SQLite: FTS5 tables with the trigram tokenizer, contentless (they hold only the index),
 * kept in step by triggers. PostgreSQL: pg_trgm GIN indexes.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine === 'postgres') {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index members_login_trgm on members using gin (login_key gin_trgm_ops)`.execute(db);
    await sql`create index members_email_trgm on members using gin (email_key gin_trgm_ops)`.execute(db);
    await sql`create index member_fields_value_trgm on member_fields using gin ((coalesce(value_key, value)) gin_trgm_ops)`.execute(db);
    return;
  }
  const statements = [
    `create virtual table members_fts using fts5(login, email, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`,
    `insert into members_fts (rowid, login, email) select id, login_key, email_key from members`,
    `create trigger members_fts_insert after insert on members begin
       insert into members_fts (rowid, login, email) values (new.id, new.login_key, new.email_key);
     end`,
    `create trigger members_fts_update after update of login_key, email_key on members begin
       delete from members_fts where rowid = old.id;
       insert into members_fts (rowid, login, email) values (new.id, new.login_key, new.email_key);
     end`,
    `create trigger members_fts_delete after delete on members begin
       delete from members_fts where rowid = old.id;
     end`,
    `create virtual table member_fields_fts using fts5(value, content='', contentless_delete=1, tokenize='trigram case_sensitive 1')`,
    `insert into member_fields_fts (rowid, value) select rowid, coalesce(value_key, value) from member_fields`,
    `create trigger member_fields_fts_insert after insert on member_fields begin
       insert into member_fields_fts (rowid, value) values (new.rowid, coalesce(new.value_key, new.value));
     end`,
    `create trigger member_fields_fts_update after update of value, value_key on member_fields begin
       delete from member_fields_fts where rowid = old.rowid;
       insert into member_fields_fts (rowid, value) values (new.rowid, coalesce(new.value_key, new.value));
     end`,
    `create trigger member_fields_fts_delete after delete on member_fields begin
       delete from member_fields_fts where rowid = old.rowid;
     end`,
  ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}
