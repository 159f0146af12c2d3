/**
 * Every writer procedure (dialects/dialect.ts: WriterProcedure): the store's transactions, each
 * defined beside the repository it serves. SQLite's writer thread imports this list and runs,
 * by name, the procedures a group-commit message names; PostgreSQL runs them on its pool. A
 * new procedure is an entry here (a test finds any that is not).
 */
import type { WriterProcedure } from './dialects/dialect.js';
import { sequenceBatch } from './event-repository.js';
import { foldAccountUsage, foldMemberCounts, purgeDeleted, warnExpiringChunk } from './housekeeping-repository.js';
import { clearLoginFailures, recordLogin, recordLoginFailure } from './login-records-repository.js';
import { writeImportBatch } from './member-import-export.js';
import { insertMember, markEmailVerified } from './member-repository.js';
import { expireDueChunk, updateMembersProcedure } from './member-updates.js';
import { grantOperator, setPasswordByLink } from './operator-repository.js';
import { capturePassword } from './upstream-repository.js';
import { fanOut } from './webhook-repository.js';
import { runStatements } from './writes.js';

export const WRITER_PROCEDURES: ReadonlyArray<WriterProcedure<never[], unknown>> = [
  runStatements,
  sequenceBatch,
  foldAccountUsage,
  foldMemberCounts,
  purgeDeleted,
  warnExpiringChunk,
  clearLoginFailures,
  recordLogin,
  recordLoginFailure,
  writeImportBatch,
  insertMember,
  markEmailVerified,
  expireDueChunk,
  updateMembersProcedure,
  grantOperator,
  setPasswordByLink,
  capturePassword,
  fanOut,
] as never;
