/** Export and import: what an export holds and its format; an upload, its columns' mapping, a dry run's report, a run's progress and rejects. */
import type { Account } from '../../accounts/account.js';
import { html, type Html } from '../../http/html.js';
import type { FileFormat } from '../../import-export/files.js';
import { classifyColumn, guessTarget, IMPORT_TARGETS, PROFILE_PREFIX, profileColumnName } from '../../import-export/import-row.js';
import type { ImportJob } from '../../import-export/import-jobs.js';
import type { Params } from '../replies.js';
import type { ConsoleKey } from '../../messages/catalog.js';
import { importPath, membersPath } from '../paths.js';
import { accountTitle, backToMembers, layout, t, type Chrome } from './layout.js';

/** How often the page of a job that runs reloads itself, in seconds. */
export const REFRESH_SECONDS = 1;

/** The members page's own columns, by their names in an export file (Id, Login, E-mail, Status, Registered, Last login). */
export const SHOWN_COLUMNS = ['id', 'login', 'email', 'status', 'reg_time', 'last_login_time'] as const;

/** The file's columns: the page's own, then the profile fields it shows. */
export const fileColumns = (profileFields: readonly string[]) => [...SHOWN_COLUMNS, ...profileFields.map(profileColumnName)];

export const FORMATS: Record<FileFormat, { label: ConsoleKey; type: string }> = {
  csv: { label: 'formatCsv', type: 'text/csv; charset=utf-8' },
  jsonl: { label: 'formatJsonl', type: 'application/x-ndjson; charset=utf-8' },
};

export const jobPath = (account: string, job: ImportJob) => `${importPath(account)}/${job.id}`;
/** A size for people: KiB under a MiB, else MiB. */
export const mib = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.ceil(bytes / 1024).toLocaleString('en')} KiB`
    : `${(bytes / 1024 / 1024).toLocaleString('en', { maximumFractionDigits: 1 })} MiB`;
/** "1 row", "1,234 rows": a count and its noun's key, one or many. */
const count = (n: number, one: ConsoleKey, many: ConsoleKey) => `${n.toLocaleString('en')} ${t(n === 1 ? one : many)}`;

/** What an export will hold (the filter's members, the page's columns), and its format: chosen without script. */
export function exportPage(
  chrome: Chrome,
  view: { account: string; back: string; search: string; total: number; columns: readonly string[]; query: Readonly<Record<string, string>> },
): string {
  const { account, back, search, total, columns, query } = view;
  return layout(
    t('exportTitle', { page: accountTitle('navMembers', account) }),
    chrome,
    html`<p><a href="${back}">← ${accountTitle('navMembers', account)}</a></p><h1>${t('exportMembers')}</h1>
<div class="card"><p>${t('exportThe')} <strong>${total.toLocaleString('en')}</strong> ${t(total === 1 ? 'member' : 'members')} ${t(search ? 'exportFilterFinds' : 'exportFilterFindsAll')}</p>
<p><code>${columns.join(', ')}</code></p>
<p class="muted">${t('exportNoHashes')}</p>
<form method="get" action="${membersPath(account)}/export/file" class="edit">
${Object.entries(query).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<fieldset><legend>${t('format')}</legend>${(Object.keys(FORMATS) as FileFormat[]).map(
      (format, index) =>
        html`<label class="inline"><input type="radio" name="format" value="${format}"${index === 0 ? html` checked` : ''}> ${t(FORMATS[format].label)}</label>`,
    )}</fieldset>
<div class="actions"><button type="submit">${t('download')}</button><a href="${back}">${t('cancel')}</a></div></form></div>`,
  );
}

export function uploadPage(chrome: Chrome, account: string, limit: number): string {
  return layout(
    t('importTitle', { page: accountTitle('navMembers', account) }),
    chrome,
    html`${backToMembers(account)}<h1>${t('importMembers')}</h1>
<div class="card"><form method="post" action="${importPath(account)}" enctype="multipart/form-data" class="edit">
<label>${t('format')} <select name="format"><option value="">${t('importFormatByName')}</option><option value="csv">CSV</option><option value="jsonl">JSON Lines</option></select></label>
<label>${t('importFile')} <input type="file" name="file" accept=".csv,.jsonl,.ndjson,text/csv,application/x-ndjson" required></label>
<div class="actions"><button type="submit">${t('importUpload')}</button></div></form>
<p class="muted">${t('importUploadHelp', { size: mib(limit) })} <code>member-api import</code> ${t('importUploadHelpDocs')}</p></div>`,
  );
}

function summaryTable(job: ImportJob): Html {
  const run = job.run!;
  const summary = run.summary;
  const rows: Array<[string, string]> = summary
    ? [
        [t('importRowsRead'), summary.read.toLocaleString('en')],
        [t(run.dryRun ? 'importNewWouldBe' : 'importNew'), summary.imported.toLocaleString('en')],
        [t(run.dryRun ? 'importUpdatedWouldBe' : 'importUpdated'), summary.updated.toLocaleString('en')],
        [t('importRowsRejected'), summary.rejected.toLocaleString('en')],
        ...Object.entries(summary.reasons)
          .sort(([, a], [, b]) => b - a)
          .map(([reason, n]): [string, string] => [`· ${reason}`, n.toLocaleString('en')]),
      ]
    : [];
  if (job.passwordsByMail && summary)
    rows.push([t(run.dryRun ? 'importWithoutPasswordWouldBe' : 'importMailedReset'), run.withoutPassword.toLocaleString('en')]);
  return html`<table class="kv"><tbody>${rows.map(([name, value]) => html`<tr><th>${name}</th><td>${value}</td></tr>`)}</tbody></table>`;
}

function rejectsList(account: string, job: ImportJob): Html {
  const run = job.run!;
  if (run.rejected === 0) return html`<p class="muted">${t('importNoRowRejected')}</p>`;
  const rows = count(run.rejected, 'row', 'rows');
  return html`<h2>${t('importRejects')}</h2><p>${run.rejected > run.rejects.length ? t('importRejectedFirst', { rows, count: run.rejects.length }) : t('importRejected', { rows })} <a class="button secondary" href="${jobPath(account, job)}/rejects">${t('importDownloadRejects', { format: job.format === 'csv' ? 'CSV' : 'JSON Lines' })}</a></p>
<p class="muted">${t('importRejectsHelp')} (<code>_line</code>, <code>_reason</code>): ${t('importRejectsCorrect')}</p>
<table><thead><tr><th>${t('importLine')}</th><th>${t('importReason')}</th></tr></thead><tbody>${run.rejects.map((reject) => html`<tr><td>${reject.line}</td><td>${reject.reason}</td></tr>`)}</tbody></table>`;
}

/** The profile fields an account is known to have: its registration fields and the fields its checks hand on. */
function accountFields(account: Account): string[] {
  return [...new Set([...account.settings.registrationFields.map((field) => field.name), ...account.settings.checkFields])];
}

function mappingForm(account: Account, job: ImportJob, sent?: Params): Html {
  const known = accountFields(account);
  const targetOf = (index: number, column: string) => sent?.[`map:${index}`] ?? job.mapping?.get(column) ?? guessTarget(column, known);
  const passwords = sent?.passwords ?? (job.passwordsByMail ? 'mail' : 'reject');
  const option = (value: string, label: string, current: string) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  return html`<form method="post" action="${jobPath(account.name, job)}/check" class="settings">
<div class="edit">${job.columns.map((column, index) => {
    const current = targetOf(index, column);
    const own = classifyColumn(`${PROFILE_PREFIX}${column}`).kind === 'profile' ? `${PROFILE_PREFIX}${column}` : undefined;
    // The account's own fields first, then the column's own name as a new field.
    const profiles = [
      ...new Set(
        [...known.map((name) => `${PROFILE_PREFIX}${name}`), own, current.startsWith(PROFILE_PREFIX) ? current : undefined].filter(
          (v): v is string => v !== undefined,
        ),
      ),
    ];
    return html`<label>${column} <select name="map:${index}">${option('', t('importLeaveOut'), current)}${IMPORT_TARGETS.map((target) => option(target, target, current))}${profiles.map((target) => option(target, t('importProfileField', { name: target.slice(PROFILE_PREFIX.length) }), current))}</select></label>`;
  })}</div>
<fieldset><legend>${t('importWithoutPassword')}</legend>
<label class="inline"><input type="radio" name="passwords" value="reject"${passwords !== 'mail' ? html` checked` : ''}> ${t('importRejectTheirRows')}</label>
<label class="inline"><input type="radio" name="passwords" value="mail"${passwords === 'mail' ? html` checked` : ''}> ${t(account.settings.smtpUrl === '' ? 'importPasswordsByMailNoServer' : 'importPasswordsByMail')}</label>
</fieldset>
<div class="actions"><button type="submit"${job.state === 'checked' ? html` class="secondary"` : ''}>${t('importDryRun')}</button></div></form>
<p class="muted">${t('importDryRunHelp')}</p>`;
}

export function jobPage(chrome: Chrome, account: Account, job: ImportJob, sent?: Params): string {
  const run = job.run;
  const name = account.name;
  const head = html`${backToMembers(name)}<h1>${t('importFileName', { file: job.fileName })}</h1>
<p class="muted">${job.format === 'csv' ? 'CSV' : 'JSON Lines'}, ${mib(job.bytes)}, ${count(job.columns.length, 'fileColumn', 'fileColumns')}.</p>`;
  let body: Html;
  switch (job.state) {
    case 'checking':
    case 'running': {
      const percent = job.bytes === 0 ? 100 : Math.min(100, Math.floor((run!.offset / job.bytes) * 100));
      body = html`<meta http-equiv="refresh" content="${REFRESH_SECONDS}">
<div class="card" role="status"><h2>${t(job.state === 'checking' ? 'importDryRun' : 'importImporting')}: ${percent}%</h2>
<p><progress max="100" value="${percent}">${percent}%</progress></p>
<p>${
        run!.rejected > 0
          ? t('importHandledRejected', { rows: count(run!.handled, 'row', 'rows'), rejected: count(run!.rejected, 'row', 'rows') })
          : t('importHandled', { rows: count(run!.handled, 'row', 'rows') })
      } ${t('importReloads')}</p></div>`;
      break;
    }
    case 'checked':
      body = html`<div class="card"><h2>${t('importDryRunDone')}</h2>${summaryTable(job)}
<form method="post" action="${jobPath(name, job)}/run" class="actions"><button type="submit">${t('importRun', { members: count((run!.summary?.imported ?? 0) + (run!.summary?.updated ?? 0), 'member', 'members') })}</button></form>
${rejectsList(name, job)}</div>
<div class="card"><h2>${t('importChangeMapping')}</h2>${mappingForm(account, job, sent)}</div>`;
      break;
    case 'done':
      body = html`<div class="card"><h2>${t('importImported')}</h2>${summaryTable(job)}${rejectsList(name, job)}
<p><a class="button" href="${membersPath(name)}">${t('importSeeMembers')}</a></p></div>`;
      break;
    case 'failed':
      body = html`<div class="card"><h2>${t(run?.dryRun ? 'importDryRunStopped' : 'importStopped')}</h2><p>${run?.error ?? ''}</p>
<p class="muted">${t(run?.dryRun ? 'importNothingWritten' : 'importBatchesStay')}</p></div>
<div class="card"><h2>${t('importColumns')}</h2>${mappingForm(account, job, sent)}</div>`;
      break;
    case 'uploaded':
      body = html`<div class="card"><h2>${t('importMapColumns')}</h2><p class="muted">${t('importGuessed')}</p>${mappingForm(account, job, sent)}</div>`;
      break;
  }
  return layout(t('importJobTitle', { page: accountTitle('navMembers', name), file: job.fileName }), chrome, html`${head}${body}`);
}
