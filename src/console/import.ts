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
import type { Account } from '../accounts/account.js';
import { html, type Html } from '../http/html.js';
import { formatOf, type FileFormat } from '../import-export/files.js';
import { classifyColumn, guessTarget, IMPORT_TARGETS, PROFILE_PREFIX } from '../import-export/import-row.js';
import { UploadRefused, type ImportJob, type ImportJobs } from '../import-export/import-jobs.js';
import { registerExport, type ExportKit } from './export.js';
import type { Params } from './forms.js';
import { layout, membersPath, messagePage, type Chrome } from './pages.js';

export interface TransferKit extends ExportKit {
  readonly imports: ImportJobs;
  /** IMPORT_UPLOAD_LIMIT_BYTES. */
  readonly uploadLimitBytes: number;
}

const importPath = (account: string) => `${membersPath(account)}/import`;
const jobPath = (account: string, job: ImportJob) => `${importPath(account)}/${job.id}`;
/** How often the page of a job that runs reloads itself, in seconds. */
const REFRESH_SECONDS = 1;

/** A size for people: KiB under a MiB, else MiB. */
const mib = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.ceil(bytes / 1024).toLocaleString('en')} KiB`
    : `${(bytes / 1024 / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} MiB`;
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** The export and the import, registered together (one line in routes.ts). */
export function registerTransfer(scope: FastifyInstance, kit: TransferKit): void {
  registerExport(scope, kit);
  registerImport(scope, kit);
}

function registerImport(scope: FastifyInstance, kit: TransferKit): void {
  scope.addHook('onClose', async () => kit.imports.close());

  /** The job of the URL, when the operator may import into its account; else the page that says there is none (404). */
  async function jobOf(request: FastifyRequest, reply: FastifyReply) {
    const seen = await kit.accountOf(request, reply, 'editor');
    if (!seen) return undefined;
    const job = kit.imports.find(seen.account, (request.params as { job: string }).job);
    if (!job) {
      kit.send(
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
    return kit.send(
      reply,
      409,
      jobPage(
        { operator, account: account.name, notice: { kind: 'error', text: 'A run of this import is in progress: wait for it to end, then start another.' } },
        account,
        job,
      ),
    );
  }

  scope.get('/accounts/:account/members/import', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'editor');
    if (!seen) return reply;
    return kit.send(reply, 200, uploadPage({ operator: seen.operator, account: seen.account.name }, seen.account.name, kit.uploadLimitBytes));
  });

  scope.post('/accounts/:account/members/import', async (request, reply) => {
    const seen = await kit.accountOf(request, reply, 'editor');
    if (!seen) return reply;
    const { operator, account } = seen;
    const refuse = (status: number, text: string) =>
      kit.send(reply, status, uploadPage({ operator, account: account.name, notice: { kind: 'error', text } }, account.name, kit.uploadLimitBytes));
    if (!request.isMultipart()) return refuse(400, 'Invalid parameter: file: send the form as multipart/form-data, as the upload form does.');
    // The format's field comes before the file in the form, so it is read first.
    const upload = await request.file({ limits: { fileSize: kit.uploadLimitBytes, files: 1, fields: 4, fieldSize: 100 } });
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
      const job = await kit.imports.receive(account, upload.filename, format, upload.file, () => upload.file.truncated);
      return kit.seeOther(reply, `${jobPath(account.name, job)}?done=uploaded`);
    } catch (error) {
      if (!(error instanceof UploadRefused)) throw error;
      // Refused before it was read ('busy'): the rest of the request is let through.
      upload.file.resume();
      if (error.reason === 'busy') return refuse(429, `Too many imports: ${error.message}.`);
      if (error.reason === 'too-large')
        return refuse(413, `Invalid parameter: file: larger than the ${mib(kit.uploadLimitBytes)} the server takes (IMPORT_UPLOAD_LIMIT_BYTES).`);
      return refuse(400, `Invalid parameter: file: ${error.message}.`);
    }
  });

  scope.get('/accounts/:account/members/import/:job', async (request, reply) => {
    const seen = await jobOf(request, reply);
    if (!seen) return reply;
    const running = seen.job.state === 'checking' || seen.job.state === 'running';
    // A run in progress: the page reloads itself (no script) until it ends.
    if (running) reply.header('refresh', String(REFRESH_SECONDS));
    return kit.send(reply, 200, jobPage({ operator: seen.operator, account: seen.account.name, notice: kit.doneNotice(request) }, seen.account, seen.job));
  });

  scope.post('/accounts/:account/members/import/:job/check', async (request, reply) => {
    const seen = await jobOf(request, reply);
    if (!seen) return reply;
    const { operator, account, job } = seen;
    const form = kit.formOf(request);
    const choice = mappingOf(job, form, account);
    if ('error' in choice)
      return kit.send(reply, 400, jobPage({ operator, account: account.name, notice: { kind: 'error', text: choice.error } }, account, job, form));
    if (!kit.imports.start(account, job, true, request.log, choice)) return inProgress(reply, operator, account, job);
    return kit.seeOther(reply, jobPath(account.name, job));
  });

  scope.post('/accounts/:account/members/import/:job/run', async (request, reply) => {
    const seen = await jobOf(request, reply);
    if (!seen) return reply;
    const { operator, account, job } = seen;
    if (job.state !== 'checked')
      return kit.send(
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
    if (!kit.imports.start(account, job, false, request.log)) return inProgress(reply, operator, account, job);
    return kit.seeOther(reply, jobPath(account.name, job));
  });

  scope.get('/accounts/:account/members/import/:job/rejects', async (request, reply) => {
    const seen = await jobOf(request, reply);
    if (!seen) return reply;
    const { job, account, operator } = seen;
    const path = kit.imports.rejectsFile(job);
    if (!path || job.state === 'checking' || job.state === 'running')
      return kit.send(
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

function uploadPage(chrome: Chrome, account: string, limit: number): string {
  return layout(
    `Members of ${account}: import`,
    chrome,
    html`<p><a href="${membersPath(account)}">← Members of ${account}</a></p><h1>Import members</h1>
<div class="card"><form method="post" action="${importPath(account)}" enctype="multipart/form-data" class="edit">
<label>Format <select name="format"><option value="">by the file’s name (.csv, .jsonl)</option><option value="csv">CSV</option><option value="jsonl">JSON Lines</option></select></label>
<label>File <input type="file" name="file" accept=".csv,.jsonl,.ndjson,text/csv,application/x-ndjson" required></label>
<div class="actions"><button type="submit">Upload</button></div></form>
<p class="muted">Up to ${mib(limit)}. A CSV file starts with its header; JSON Lines hold one member per line. Next: map the columns, then a dry run shows what the import would do and which rows it would reject, before anything is written. Members are found by login: one that exists is updated, never duplicated. The format is the one of <code>member-api import</code> (see the docs’ Import and export).</p></div>`,
  );
}

function summaryTable(job: ImportJob): Html {
  const run = job.run!;
  const summary = run.summary;
  const rows: Array<[string, string]> = summary
    ? [
        ['Rows read', summary.read.toLocaleString('en')],
        [run.dryRun ? 'New members (would be made)' : 'New members', summary.imported.toLocaleString('en')],
        [run.dryRun ? 'Members updated (would be)' : 'Members updated', summary.updated.toLocaleString('en')],
        ['Rows rejected', summary.rejected.toLocaleString('en')],
        ...Object.entries(summary.reasons)
          .sort(([, a], [, b]) => b - a)
          .map(([reason, n]): [string, string] => [`· ${reason}`, n.toLocaleString('en')]),
      ]
    : [];
  if (job.passwordsByMail && summary)
    rows.push([
      run.dryRun ? 'New members without a password (would be mailed a reset link)' : 'Mailed a reset link (no password)',
      run.withoutPassword.toLocaleString('en'),
    ]);
  return html`<table class="kv"><tbody>${rows.map(([name, value]) => html`<tr><th>${name}</th><td>${value}</td></tr>`)}</tbody></table>`;
}

function rejectsList(account: string, job: ImportJob): Html {
  const run = job.run!;
  if (run.rejected === 0) return html`<p class="muted">No row rejected.</p>`;
  return html`<h2>Rejects</h2><p>${count(run.rejected, 'row')} rejected${run.rejected > run.rejects.length ? html` (the first ${run.rejects.length} below)` : ''}. <a class="button secondary" href="${jobPath(account, job)}/rejects">Download the rejects (${job.format === 'csv' ? 'CSV' : 'JSON Lines'})</a></p>
<p class="muted">Each rejected row as it was in the file, with its line and the reason (<code>_line</code>, <code>_reason</code>): correct them there and import that file.</p>
<table><thead><tr><th>Line</th><th>Reason</th></tr></thead><tbody>${run.rejects.map((reject) => html`<tr><td>${reject.line}</td><td>${reject.reason}</td></tr>`)}</tbody></table>`;
}

function mappingForm(account: Account, job: ImportJob, sent?: Params): Html {
  const targetOf = (index: number, column: string) => sent?.[`map:${index}`] ?? job.mapping?.get(column) ?? guessTarget(column);
  const passwords = sent?.passwords ?? (job.passwordsByMail ? 'mail' : 'reject');
  const option = (value: string, label: string, current: string) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  return html`<form method="post" action="${jobPath(account.name, job)}/check" class="settings">
<div class="edit">${job.columns.map((column, index) => {
    const current = targetOf(index, column);
    const own = classifyColumn(`${PROFILE_PREFIX}${column}`).kind === 'profile' ? `${PROFILE_PREFIX}${column}` : undefined;
    const profiles = [...new Set([own, current.startsWith(PROFILE_PREFIX) ? current : undefined].filter((v): v is string => v !== undefined))];
    return html`<label>${column} <select name="map:${index}">${option('', '(leave out)', current)}${IMPORT_TARGETS.map((target) => option(target, target, current))}${profiles.map((target) => option(target, `profile field “${target.slice(PROFILE_PREFIX.length)}”`, current))}</select></label>`;
  })}</div>
<fieldset><legend>New members without a password</legend>
<label class="inline"><input type="radio" name="passwords" value="reject"${passwords !== 'mail' ? html` checked` : ''}> Reject their rows</label>
<label class="inline"><input type="radio" name="passwords" value="mail"${passwords === 'mail' ? html` checked` : ''}> Members set their password by e-mail (they get the reset mail${account.settings.smtpUrl === '' ? '; this account has no mail server yet' : ''})</label>
</fieldset>
<div class="actions"><button type="submit"${job.state === 'checked' ? html` class="secondary"` : ''}>Dry run</button></div></form>
<p class="muted">A dry run writes nothing and mails nobody: it reads the whole file with this mapping and reports what the import would do. Columns left out are not read; a member’s fields the file does not give are kept.</p>`;
}

function jobPage(chrome: Chrome, account: Account, job: ImportJob, sent?: Params): string {
  const run = job.run;
  const name = account.name;
  const head = html`<p><a href="${membersPath(name)}">← Members of ${name}</a></p><h1>Import ${job.fileName}</h1>
<p class="muted">${job.format === 'csv' ? 'CSV' : 'JSON Lines'}, ${mib(job.bytes)}, ${count(job.columns.length, 'column')}.</p>`;
  let body: Html;
  switch (job.state) {
    case 'checking':
    case 'running': {
      const percent = job.bytes === 0 ? 100 : Math.min(100, Math.floor((run!.offset / job.bytes) * 100));
      body = html`<meta http-equiv="refresh" content="${REFRESH_SECONDS}">
<div class="card" role="status"><h2>${job.state === 'checking' ? 'Dry run' : 'Importing'}: ${percent}%</h2>
<p><progress max="100" value="${percent}">${percent}%</progress></p>
<p>${count(run!.handled, 'row')} handled${run!.rejected > 0 ? `, ${count(run!.rejected, 'row')} rejected` : ''}. This page reloads itself until the run ends; you may leave it and come back (the run goes on).</p></div>`;
      break;
    }
    case 'checked':
      body = html`<div class="card"><h2>Dry run: nothing was written</h2>${summaryTable(job)}
<form method="post" action="${jobPath(name, job)}/run" class="actions"><button type="submit">Import ${count((run!.summary?.imported ?? 0) + (run!.summary?.updated ?? 0), 'member')}</button></form>
${rejectsList(name, job)}</div>
<div class="card"><h2>Change the mapping</h2>${mappingForm(account, job, sent)}</div>`;
      break;
    case 'done':
      body = html`<div class="card"><h2>Imported</h2>${summaryTable(job)}${rejectsList(name, job)}
<p><a class="button" href="${membersPath(name)}">See the members</a></p></div>`;
      break;
    case 'failed':
      body = html`<div class="card"><h2>The ${run?.dryRun ? 'dry run' : 'import'} stopped</h2><p>${run?.error ?? ''}</p>
<p class="muted">${run?.dryRun ? 'Nothing was written.' : 'The batches written before it stay written; a rerun of the file changes nothing it changed already.'}</p></div>
<div class="card"><h2>Columns</h2>${mappingForm(account, job, sent)}</div>`;
      break;
    case 'uploaded':
      body = html`<div class="card"><h2>Map the columns to fields</h2><p class="muted">Guessed from the header: check each.</p>${mappingForm(account, job, sent)}</div>`;
      break;
  }
  return layout(`Members of ${name}: import ${job.fileName}`, chrome, html`${head}${body}`);
}
