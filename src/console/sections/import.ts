/**
 * The console's import (editors and owners), in four pages that work without script: upload
 * a CSV or JSON Lines file (streamed to a private temporary file, up to
 * IMPORT_UPLOAD_LIMIT_BYTES); map its columns to fields (guessed from the header); a dry run
 * that reports what it would do and the rows it would reject; then the run. Both runs go on
 * in the background through the importer of `member-api import` (import-export/import-jobs.ts),
 * while the job's page refreshes itself until the run ends; the rejects are downloadable.
 * New members without a password are rejected, or, when the operator chooses it, made
 * without one and sent the reset mail to set it.
 */
import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../../accounts/account.js';
import { formatOf, type FileFormat } from '../../import-export/files.js';
import { classifyColumn, IMPORT_TARGETS, PROFILE_PREFIX } from '../../import-export/import-row.js';
import { UploadRefused, type ImportJob } from '../../import-export/import-jobs.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { importPath } from '../paths.js';
import { doneNotice, formOf, send, seeOther, type Params } from '../replies.js';
import { messagePage, t, type Chrome } from '../views/layout.js';
import { jobPage, jobPath, mib, REFRESH_SECONDS, uploadPage } from '../views/transfer.js';

export async function importSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  scope.addHook('onClose', async () => deps.imports.close());

  /** The job of the URL, when the operator may import into its account; else the page that says there is none (404). */
  function jobOf(request: FastifyRequest, reply: FastifyReply) {
    const seen = onAccount(request);
    const job = deps.imports.find(seen.account, (request.params as { job: string }).job);
    if (!job) {
      send(
        reply,
        404,
        messagePage(
          t('notFound'),
          t('importNotFound'),
          { operator: seen.operator, account: seen.account.name },
          { href: importPath(seen.account.name), text: t('importAFile') },
        ),
      );
      return undefined;
    }
    return { ...seen, job };
  }

  /** A run asked for while one is in progress: refused (409), on the job's page. */
  function inProgress(reply: FastifyReply, operator: Chrome['operator'], account: Account, job: ImportJob) {
    return send(reply, 409, jobPage({ operator, account: account.name, notice: { kind: 'error', text: t('importInProgress') } }, account, job));
  }

  scope.get('/import', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = onAccount(request);
    return send(reply, 200, uploadPage({ operator: seen.operator, account: seen.account.name }, seen.account.name, deps.uploadLimitBytes));
  });

  scope.post('/import', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = onAccount(request);
    const { operator, account } = seen;
    const refuse = (status: number, text: string) =>
      send(reply, status, uploadPage({ operator, account: account.name, notice: { kind: 'error', text } }, account.name, deps.uploadLimitBytes));
    if (!request.isMultipart()) return refuse(400, t('importNotMultipart'));
    // The format's field comes before the file in the form, so it is read first.
    const upload = await request.file({ limits: { fileSize: deps.uploadLimitBytes, files: 1, fields: 4, fieldSize: 100 } });
    if (!upload || upload.filename === '') {
      upload?.file.resume();
      return refuse(400, t('importNoFile'));
    }
    const field = upload.fields.format;
    const chosen = field && !Array.isArray(field) && field.type === 'field' ? String(field.value) : '';
    const format: FileFormat | undefined = chosen === 'csv' || chosen === 'jsonl' ? chosen : chosen === '' ? formatOf(upload.filename) : undefined;
    if (!format) {
      upload.file.resume();
      return refuse(400, chosen === '' ? t('importUnknownFormat', { file: upload.filename }) : t('invalidFormat'));
    }
    try {
      const job = await deps.imports.receive(account, upload.filename, format, upload.file, () => upload.file.truncated);
      return seeOther(reply, `${jobPath(account.name, job)}?done=uploaded`);
    } catch (error) {
      if (!(error instanceof UploadRefused)) throw error;
      // Refused before it was read ('busy'): the rest of the request is let through.
      upload.file.resume();
      if (error.reason === 'busy') return refuse(429, t('importTooMany', { reason: error.message }));
      if (error.reason === 'too-large') return refuse(413, t('importTooLarge', { size: mib(deps.uploadLimitBytes) }));
      return refuse(400, t('importFileRefused', { reason: error.message }));
    }
  });

  scope.get('/import/:job', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = jobOf(request, reply);
    if (!seen) return reply;
    const running = seen.job.state === 'checking' || seen.job.state === 'running';
    // A run in progress: the page reloads itself (no script) until it ends.
    if (running) reply.header('refresh', String(REFRESH_SECONDS));
    return send(reply, 200, jobPage({ operator: seen.operator, account: seen.account.name, notice: doneNotice(request) }, seen.account, seen.job));
  });

  scope.post('/import/:job/check', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = jobOf(request, reply);
    if (!seen) return reply;
    const { operator, account, job } = seen;
    const form = formOf(request);
    const choice = mappingOf(job, form, account);
    if ('error' in choice)
      return send(reply, 400, jobPage({ operator, account: account.name, notice: { kind: 'error', text: choice.error } }, account, job, form));
    if (!deps.imports.start(account, job, true, request.log, choice)) return inProgress(reply, operator, account, job);
    return seeOther(reply, jobPath(account.name, job));
  });

  scope.post('/import/:job/run', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = jobOf(request, reply);
    if (!seen) return reply;
    const { operator, account, job } = seen;
    if (job.state !== 'checked')
      return send(reply, 409, jobPage({ operator, account: account.name, notice: { kind: 'error', text: t('importDryRunFirst') } }, account, job));
    if (!deps.imports.start(account, job, false, request.log)) return inProgress(reply, operator, account, job);
    return seeOther(reply, jobPath(account.name, job));
  });

  scope.get('/import/:job/rejects', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = jobOf(request, reply);
    if (!seen) return reply;
    const { job, account, operator } = seen;
    const path = deps.imports.rejectsFile(job);
    if (!path || job.state === 'checking' || job.state === 'running')
      return send(
        reply,
        404,
        messagePage(
          t('importNoRejects'),
          t('importNoRejectsText'),
          { operator, account: account.name },
          { href: jobPath(account.name, job), text: t('backToImport') },
        ),
      );
    const name = `${job.fileName.replace(/\.[^.]*$/, '').replace(/[^A-Za-z0-9_.-]/g, '_')}.rejected.${job.format}`;
    return reply
      .type(job.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(createReadStream(path));
  });
}
/**
 * The mapping a form chooses (`map:N` for the file's N-th column) and the choice for members
 * without a password, or what is wrong with it, naming the parameter.
 */
function mappingOf(job: ImportJob, form: Params, account: Account): { mapping: Map<string, string>; passwordsByMail: boolean } | { error: string } {
  const mapping = new Map<string, string>();
  const taken = new Map<string, string>();
  for (const [index, column] of job.columns.entries()) {
    const name = `map:${index}`;
    const target = form[name] ?? '';
    if (target !== '' && !IMPORT_TARGETS.includes(target) && (!target.startsWith(PROFILE_PREFIX) || classifyColumn(target).kind !== 'profile'))
      return { error: t('importNoSuchField', { name, target }) };
    if (target !== '' && taken.has(target)) return { error: t('importFieldTaken', { name, target, column: taken.get(target)! }) };
    if (target !== '') taken.set(target, column);
    mapping.set(column, target);
  }
  if (!taken.has('login')) return { error: t('importNoLogin') };
  const passwords = form.passwords ?? 'reject';
  if (passwords !== 'reject' && passwords !== 'mail') return { error: t('importPasswordsChoice') };
  if (passwords === 'mail' && account.settings.smtpUrl === '') return { error: t('importPasswordsNoServer') };
  return { mapping, passwordsByMail: passwords === 'mail' };
}
