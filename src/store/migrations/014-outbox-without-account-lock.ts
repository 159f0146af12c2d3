import { sql, type Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/**
 * PostgreSQL: the event outbox no longer references `accounts`. A foreign key's check locks
 * the row it finds (FOR KEY SHARE) until the transaction ends, and every change of an account
 * writes to the outbox, so every concurrent change of one account locked that one row: with
 * more than one locker PostgreSQL records them in a MultiXact, rewritten on the account's row
 * by each new locker, which cost an update of one member under concurrent load about a quarter
 * more of the server's processor time with events on than off (measured: 4.8 against 3.6 ms
 * per update; without the key, 4.0 against 4.2). The outbox is a queue: its rows live for
 * a second. The sequencer drops the events of an account deleted meanwhile (the trail and the
 * counters keep their keys, and their cascades).
 *
 * SQLite's check is a look-up that locks nothing (one writer holds the whole file): its key
 * stays.
 */
export async function up(db: Kysely<any>, engine: Engine): Promise<void> {
  if (engine === 'postgres') await sql`alter table event_outbox drop constraint if exists event_outbox_account_id_fkey`.execute(db);
}
