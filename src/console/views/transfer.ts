/** Export and import: what an export holds and its format; an upload, its columns' mapping, a dry run's report, a run's progress and rejects. */
import type { Account } from '../../accounts/account.js';
import { html, type Html } from '../../http/html.js';
import type { FileFormat } from '../../import-export/files.js';
import { classifyColumn, guessTarget, IMPORT_TARGETS, PROFILE_PREFIX, profileColumnName } from '../../import-export/import-row.js';
import type { ImportJob } from '../../import-export/import-jobs.js';
import type { Params } from '../replies.js';
import { importPath, membersPath } from '../paths.js';
import { layout, type Chrome } from './layout.js';

/** How often the page of a job that runs reloads itself, in seconds. */
export const REFRESH_SECONDS = 1;

/** The members page's own columns, by their names in an export file (Id, Login, E-mail, Status, Registered, Last login). */
export const SHOWN_COLUMNS = ['id', 'login', 'email', 'status', 'reg_time', 'last_login_time'] as const;

/** The file's columns: the page's own, then the profile fields it shows. */
export const fileColumns = (profileFields: readonly string[]) => [...SHOWN_COLUMNS, ...profileFields.map(profileColumnName)];

export const FORMATS: Record<FileFormat, { label: string; type: string }> = {
  csv: { label: 'CSV (a spreadsheet opens it)', type: 'text/csv; charset=utf-8' },
  jsonl: { label: 'JSON Lines (one member per line)', type: 'application/x-ndjson; charset=utf-8' },
};

export const jobPath = (account: string, job: ImportJob) => `${importPath(account)}/${job.id}`;
/** A size for people: KiB under a MiB, else MiB. */
export const mib = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.ceil(bytes / 1024).toLocaleString('en')} KiB`
    : `${(bytes / 1024 / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} MiB`;
const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** What an export will hold (the filter's members, the page's columns), and its format: chosen without script. */
export function exportPage(
  chrome: Chrome,
  view: { account: string; back: string; search: string; total: number; columns: readonly string[]; query: Readonly<Record<string, string>> },
): string {
  const { account, back, search, total, columns, query } = view;
  return layout(
    `Members of ${account}: export`,
    chrome,
    html`<p><a href="${back}">← Members of ${account}</a></p><h1>Export members</h1>
<div class="card"><p>The <strong>${total.toLocaleString('en')}</strong> ${total === 1 ? 'member' : 'members'} this filter finds${search ? '' : ' (every member but the Deleted)'}, in the columns the members page shows:</p>
<p><code>${columns.join(', ')}</code></p>
<p class="muted">No password hashes (member-api export makes a whole copy). The file holds members’ personal data: keep it safe, delete it when done.</p>
<form method="get" action="${membersPath(account)}/export/file" class="edit">
${Object.entries(query).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<fieldset><legend>Format</legend>${(Object.keys(FORMATS) as FileFormat[]).map(
      (format, index) =>
        html`<label class="inline"><input type="radio" name="format" value="${format}"${index === 0 ? html` checked` : ''}> ${FORMATS[format].label}</label>`,
    )}</fieldset>
<div class="actions"><button type="submit">Download</button><a href="${back}">Cancel</a></div></form></div>`,
  );
}

export function uploadPage(chrome: Chrome, account: string, limit: number): string {
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

export function jobPage(chrome: Chrome, account: Account, job: ImportJob, sent?: Params): string {
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
