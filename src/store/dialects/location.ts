/**
 * Which engine a DATABASE_URL selects, and which store it names, for people. Kept apart from
 * the dialects themselves, so that a command that only needs to say where its store is (the
 * command line's messages) does not load the drivers.
 */
import { resolve } from 'node:path';
import { maskPassword } from '../../common/text.js';

/** A `postgres://` (or `postgresql://`) URL selects PostgreSQL; anything else is a SQLite file. */
export const isPostgresUrl = (databaseUrl: string): boolean => /^postgres(ql)?:\/\//i.test(databaseUrl);

/** The SQLite file a DATABASE_URL names (`sqlite:` and `file:` prefixes dropped). */
export const sqlitePathOf = (databaseUrl: string): string => databaseUrl.replace(/^(sqlite|file):(\/\/)?/i, '');

/** A SQLite file's absolute path: a relative DATABASE_URL is taken from the folder the program runs in. */
export function describeSqliteStore(path: string): string {
  return resolve(path);
}

/**
 * Why a PostgreSQL URL's user part cannot be read as it is written: a password (or user) holding
 * `/`, `?` or `#`, which end a URL's user part, must be percent-encoded. Undefined when it reads.
 */
export function unencodedCredentials(url: string): string | undefined {
  const at = url.lastIndexOf('@');
  const scheme = /^postgres(?:ql)?:\/\//i.exec(url)?.[0].length;
  if (scheme === undefined || at < scheme) return undefined;
  const userPart = url.slice(scheme, at);
  if (!/[/?#]/.test(userPart)) return undefined;
  return `DATABASE_URL: the password (or user name) holds a character a URL reads as the end of its user part (/ ? #, or @): write it percent-encoded (%2F %3F %23 %40), as in ${maskPassword(url)}`;
}

/**
 * A PostgreSQL URL's parts as written, its host list as one text (`HOST1:PORT1,HOST2:PORT2`,
 * which URL cannot read); `user` ends with its `@`, `rest` is the path and the query.
 */
export function postgresUrlParts(url: string): { scheme: string; user: string; hosts: string; rest: string } | undefined {
  const parts = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/i.exec(url);
  return parts ? { scheme: parts[1]!, user: parts[2] ?? '', hosts: parts[3] ?? '', rest: parts[4] ?? '' } : undefined;
}

/** `postgres://USER@HOST:PORT/DATABASE`: the server and the database, never the password (nor the query, which may hold one). */
export function describePostgresStore(url: string): string {
  // Several hosts, shown as they are given.
  const parts = postgresUrlParts(url);
  if (parts?.hosts.includes(',')) return `postgres://${parts.hosts}${parts.rest.replace(/[?#].*$/, '')}`;
  try {
    const parsed = new URL(url);
    const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
    const user = parsed.username ? `${parsed.username}@` : '';
    return `postgres://${user}${host}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'a PostgreSQL database (DATABASE_URL is not a URL this can show)';
  }
}

/** Which store a DATABASE_URL names: a SQLite file's absolute path, or a PostgreSQL server and database. */
export function describeStore(databaseUrl: string): string {
  return isPostgresUrl(databaseUrl) ? describePostgresStore(databaseUrl) : describeSqliteStore(sqlitePathOf(databaseUrl));
}
