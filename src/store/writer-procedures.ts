/**
 * Every writer procedure (dialects/dialect.ts: WriterProcedure): the store's transactions, each
 * defined beside the repository it serves. SQLite's writer thread imports this list and runs,
 * by name, the procedures a group-commit message names; PostgreSQL runs them on its pool. A
 * new procedure is an entry here (a test finds any that is not).
 */
import type { WriterProcedure } from './dialects/dialect.js';
import { sequenceBatchProcedure } from './event-repository.js';
import { foldAccountUsageProcedure, foldMemberCountsProcedure, purgeDeletedProcedure, warnExpiringProcedure } from './housekeeping-repository.js';
import { clearLoginFailuresProcedure, recordLoginProcedure, recordLoginFailureProcedure } from './login-records-repository.js';
import { importBatchProcedure } from './member-import-export.js';
import { eraseMemberProcedure } from './member-erasure.js';
import { insertMemberProcedure, markEmailVerifiedProcedure } from './member-repository.js';
import { expireDueProcedure, updateMembersProcedure } from './member-updates.js';
import { countOperatorFailureProcedure, grantOperatorProcedure, inviteOperatorProcedure, setPasswordByLinkProcedure } from './operator-repository.js';
import { capturePasswordProcedure } from './upstream-repository.js';
import { fanOutProcedure } from './webhook-repository.js';
import { statementsProcedure } from './writes.js';
import { applyNoticeProcedure } from './billing-repository.js';

export const WRITER_PROCEDURES: ReadonlyArray<WriterProcedure<never[], unknown>> = [
  statementsProcedure,
  sequenceBatchProcedure,
  foldAccountUsageProcedure,
  foldMemberCountsProcedure,
  purgeDeletedProcedure,
  warnExpiringProcedure,
  clearLoginFailuresProcedure,
  recordLoginProcedure,
  recordLoginFailureProcedure,
  importBatchProcedure,
  insertMemberProcedure,
  eraseMemberProcedure,
  markEmailVerifiedProcedure,
  expireDueProcedure,
  updateMembersProcedure,
  grantOperatorProcedure,
  countOperatorFailureProcedure,
  inviteOperatorProcedure,
  setPasswordByLinkProcedure,
  capturePasswordProcedure,
  fanOutProcedure,
  applyNoticeProcedure,
] as never;
