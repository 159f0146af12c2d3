/**
 * Every writer procedure (dialects/dialect.ts: WriterProcedure): the store's transactions that
 * run where the writer is. SQLite's writer thread imports this list and runs, by name, the
 * procedures a group-commit message names; PostgreSQL runs them on its pool. A new procedure
 * is an entry here.
 */
import type { WriterProcedure } from './dialects/dialect.js';
import { sequenceBatch } from './event-repository.js';
import { updateMembersNearWriter } from './member-updates.js';

export const WRITER_PROCEDURES: ReadonlyArray<WriterProcedure<never[], unknown>> = [updateMembersNearWriter, sequenceBatch] as never;
