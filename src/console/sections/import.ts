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
import { messagePage, type Chrome } from '../views/layout.js';
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
          'Not found',
          'There is no such import in this account: it may be over a day old, or the server restarted since (upload the file again).',
          { operator: seen.operator, account: seen.account.name },
          { href: importPath(seen.account.name), text: 'Import a file' },
        ),
      );
      return undefined;
    }
    return { ...seen, job };
  }

  /** A run asked for while one is in progress: refused (409), on the job's page. */
  function inProgress(reply: FastifyReply, operator: Chrome['operator'], account: Account, job: ImportJob) {
    return send(
      reply,
      409,
      jobPage(
        { operator, account: account.name, notice: { kind: 'error', text: 'A run of this import is in progress: wait for it to end, then start another.' } },
        account,
        job,
      ),
    );
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
    if (!request.isMultipart()) return refuse(400, 'Invalid parameter: file: send the form as multipart/form-data, as the upload form does.');
    // The format's field comes before the file in the form, so it is read first.
    const upload = await request.file({ limits: { fileSize: deps.uploadLimitBytes, files: 1, fields: 4, fieldSize: 100 } });
    if (!upload || upload.filename === '') {
      upload?.file.resume();
      return refuse(400, 'Invalid parameter: file: choose a file to import.');
    }
    const field = upload.fields.format;
    const chosen = field && !Array.isArray(field) && field.type === 'field' ? String(field.value) : '';
    const format: FileFormat | undefined = chosen === 'csv' || chosen === 'jsonl' ? chosen : chosen === '' ? formatOf(upload.filename) : undefined;
    if (!format) {
      upload.file.resume();
      return refuse(
        400,
        chosen === ''
          ? `Invalid parameter: file: cannot tell the format of “${upload.filename}”: name it .csv or .jsonl, or choose the format.`
          : 'Invalid parameter: format: csv or jsonl.',
      );
    }
    try {
      const job = await deps.imports.receive(account, upload.filename, format, upload.file, () => upload.file.truncated);
      return seeOther(reply, `${jobPath(account.name, job)}?done=uploaded`);
    } catch (error) {
      if (!(error instanceof UploadRefused)) throw error;
      // Refused before it was read ('busy'): the rest of the request is let through.
      upload.file.resume();
      if (error.reason === 'busy') return refuse(429, `Too many imports: ${error.message}.`);
      if (error.reason === 'too-large')
        return refuse(413, `Invalid parameter: file: larger than the ${mib(deps.uploadLimitBytes)} the server takes (IMPORT_UPLOAD_LIMIT_BYTES).`);
      return refuse(400, `Invalid parameter: file: ${error.message}.`);
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
      return send(
        reply,
        409,
        jobPage(
          {
            operator,
            account: account.name,
            notice: { kind: 'error', text: 'Make a dry run of this mapping first: the import runs the mapping a dry run checked.' },
          },
          account,
          job,
        ),
      );
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
          'No rejects',
          'This run rejected no row (or has not ended yet).',
          { operator, account: account.name },
          { href: jobPath(account.name, job), text: 'Back to the import' },
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
      return { error: `Invalid parameter: ${name}: “${target}” is no field (a member column, password, or profile:NAME).` };
    if (target !== '' && taken.has(target))
      return { error: `Invalid parameter: ${name}: ${target} is chosen already for the column “${taken.get(target)}”: a field takes one column.` };
    if (target !== '') taken.set(target, column);
    mapping.set(column, target);
  }
  if (!taken.has('login')) return { error: 'Invalid parameter: map: no column is the login, which every row needs: choose “login” for one.' };
  const passwords = form.passwords ?? 'reject';
  if (passwords !== 'reject' && passwords !== 'mail') return { error: 'Invalid parameter: passwords: reject or mail.' };
  if (passwords === 'mail' && account.settings.smtpUrl === '')
    return {
      error:
        'Invalid parameter: passwords: the account has no mail server (account set --smtp-url), so members cannot set their password by e-mail: give them passwords, or reject them.',
    };
  return { mapping, passwordsByMail: passwords === 'mail' };
}
