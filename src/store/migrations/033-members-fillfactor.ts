import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * PostgreSQL: each page of `members` keeps a tenth of itself free. An update writes a new
 * version of the row; when it changes no indexed column (a login's count, time and address,
 * most built-in fields) and the new version fits on the same page, it is a HOT update: no new
 * entry in any of the table's indexes. A page filled to the brim (the default) has no room,
 * and each such update wrote an entry in every index of `members` as well: 8% of the logins'
 * updates were HOT on the seeded million, and all of them on that table rewritten with the room
 * (bench/fillfactor.ts).
 *
 * Only pages written from now on keep the room; an existing store gains it as its rows are
 * updated and their old versions cleared, or at once with `VACUUM FULL members` (which locks
 * the table while it rewrites it: see docs/operating.md).
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`alter table members set (fillfactor = 90)`.execute(db);
}
