import { resolve } from 'node:path';

/**
 * A store as the command line names it to people: a SQLite file's absolute path, or
 * postgres://USER@HOST:PORT/DATABASE (never a password).
 */
export function storeShown(databaseUrl: string): string {
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) return resolve(databaseUrl);
  const url = new URL(databaseUrl);
  return `postgres://${url.username ? `${url.username}@` : ''}${url.hostname}:${url.port || '5432'}${url.pathname}`;
}
