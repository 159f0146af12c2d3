/**
 * SQLite's substring search: FTS5 tables whose words are trigrams that name the account.
 */
import { sql } from 'kysely';
import { equalsOneOf, prefixEnd, type SearchSql } from './dialect.js';
import { accountTrigrams } from './sqlite-trigrams.js';

/** A trigram needs three characters; shorter texts are found by a scan (of the account's rows). */
const TRIGRAM = 3;
const FTS_COLUMN = { login_key: 'login', email_key: 'email' } as const;

/** An FTS5 phrase of the text's trigram words (nothing in them is special to FTS5). */
function phrase(accountId: number, text: string): string {
  return `"${accountTrigrams(accountId, text)}"`;
}

export const sqliteSearch: SearchSql = {
  keyTable: 'members',
  idsStartingWith(accountId, column, prefix, limit) {
    const key = sql.ref(column);
    return sql<{ id: number }>`select id from members where account_id = ${accountId} and ${key} >= ${prefix} and ${key} < ${prefixEnd(prefix)} order by ${key} limit ${limit}`;
  },
  memberIs(accountId, column, keys, table = 'm') {
    return sql`(${sql.ref(`${table}.account_id`)} = ${accountId} and ${sql.ref(`${table}.${column}`)} ${equalsOneOf(keys)})`;
  },
  memberContains(accountId, column, text) {
    if ([...text].length < TRIGRAM) return sql`instr(${sql.ref(`m.${column}`)}, ${text}) > 0`;
    return sql`m.id in (select rowid from members_fts where members_fts match ${`{${FTS_COLUMN[column]}} : ${phrase(accountId, text)}`})`;
  },
  fieldContains(accountId, text) {
    if ([...text].length < TRIGRAM) return sql`instr(coalesce(f.value_key, f.value), ${text}) > 0`;
    return sql`f.rowid in (select rowid from member_fields_fts where member_fields_fts match ${phrase(accountId, text)})`;
  },
  profileObject(names, memberId = 'm.id') {
    return sql`(select json_group_object(f.name, f.value) from member_fields f where f.member_id = ${sql.ref(memberId)} and f.name in (${sql.join(names)}))`;
  },
};
