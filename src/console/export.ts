/**
 * The console's export (editors and owners: it holds members' personal data): the members a
 * filter of the members page finds, in the columns that page shows (its own and the profile
 * fields chosen as columns), as CSV or JSON Lines. Streamed from one read snapshot straight
 * into the reply by the same exporter as `member-api export`: a million members are never
 * held. No password hashes: a console's download is not a backup (`member-api export` is).
 */
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConcurrencySlots } from '../http/concurrency.js';
import { ApiError, HttpError } from '../http/errors.js';
import { html } from '../http/html.js';
import { queryParams } from '../http/params.js';
import { cutOffWhenStalled } from '../http/stall-watchdog.js';
import type { MemberExporter } from '../import-export/exporter.js';
import type { FileFormat } from '../import-export/files.js';
import { profileColumnName } from '../import-export/import-row.js';
import type { MemberFilters } from '../members/member-store.js';
import type { Clock } from '../common/clock.js';
import { columnsOf, filtersOf, readable, type Params } from './forms.js';
import type { ConsoleKit } from './member-pages.js';
import { layout, membersPath, messagePage, type Chrome } from './pages.js';

/** The members page's own columns, by their names in an export file (Id, Login, E-mail, Status, Registered, Last login). */
export const SHOWN_COLUMNS = ['id', 'login', 'email', 'status', 'reg_time', 'last_login_time'] as const;

/** The file's columns: the page's own, then the profile fields it shows. */
const fileColumns = (profileFields: readonly string[]) => [...SHOWN_COLUMNS, ...profileFields.map(profileColumnName)];

const FORMATS: Record<FileFormat, { label: string; type: string }> = {
  csv: { label: 'CSV (a spreadsheet opens it)', type: 'text/csv; charset=utf-8' },
  jsonl: { label: 'JSON Lines (one member per line)', type: 'application/x-ndjson; charset=utf-8' },
};

/** The members page's query that makes its filter, its order and its columns: what the export carries over. */
function filterQuery(request: FastifyRequest): Params {
  const skipped = new Set(['after', 'before', 'last', 'at', 'done', 'changed', 'format']);
  return Object.fromEntries([...queryParams(request)].filter(([name, value]) => !skipped.has(name) && value !== ''));
}

export interface ExportKit extends ConsoleKit {
  readonly exporter: MemberExporter;
  readonly clock: Clock;
  /** A download whose client takes nothing for this long is cut off (RESPONSE_STALL_TIMEOUT_MS), its snapshot released. */
  readonly stallTimeoutMs: number;
}

/**
 * Downloads at once: each holds a read snapshot (a reader thread, or a connection) while its
 * client reads. Two in all, one per account, beside /list/'s own (the store keeps two readers
 * spare for the console); another waits a moment, then is told to try again.
 */
const DOWNLOADS = { total: 2, perAccount: 1, waitMs: 1000 };

export function registerExport(scope: FastifyInstance, kit: ExportKit): void {
  /** The filter of the query, or the page that says which parameter is wrong and why. */
  function filterOf(query: Params, now: number): MemberFilters | { error: string } {
    try {
      return filtersOf(query, now);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return { error: readable(error.message) };
    }
  }

  /** The account (editors and owners), the page's chrome, and the members page's query the export carries. */
  async function exporting(request: FastifyRequest, reply: FastifyReply) {
    const seen = await kit.accountOf(request, reply, 'editor');
    return seen && { account: seen.account, chrome: { operator: seen.operator, account: seen.account.name } satisfies Chrome, query: filterQuery(request) };
  }

  // What will be exported, and in which format: a page, so that the choice is made without script.
  scope.get('/accounts/:account/members/export', async (request, reply) => {
    const seen = await exporting(request, reply);
    if (!seen) return reply;
    const { account, chrome, query } = seen;
    const search = new URLSearchParams(query).toString();
    const back = `${membersPath(account.name)}${search ? `?${search}` : ''}`;
    const filters = filterOf(query, kit.clock());
    if ('error' in filters) return kit.send(reply, 400, messagePage('Not exported', filters.error, chrome, { href: back, text: 'Back to the members' }));
    const { total } = await kit.members.pageMembers(account, { filters, order: 'id', limit: 1, profileFields: [] });
    const columns = fileColumns(columnsOf(query));
    return kit.send(
      reply,
      200,
      layout(
        `Members of ${account.name}: export`,
        chrome,
        html`<p><a href="${back}">← Members of ${account.name}</a></p><h1>Export members</h1>
<div class="card"><p>The <strong>${total.toLocaleString('en')}</strong> ${total === 1 ? 'member' : 'members'} this filter finds${search ? '' : ' (every member but the Deleted)'}, in the columns the members page shows:</p>
<p><code>${columns.join(', ')}</code></p>
<p class="muted">No password hashes (member-api export makes a whole copy). The file holds members’ personal data: keep it safe, delete it when done.</p>
<form method="get" action="${membersPath(account.name)}/export/file" class="edit">
${Object.entries(query).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<fieldset><legend>Format</legend>${(Object.keys(FORMATS) as FileFormat[]).map(
          (format, index) =>
            html`<label class="inline"><input type="radio" name="format" value="${format}"${index === 0 ? html` checked` : ''}> ${FORMATS[format].label}</label>`,
        )}</fieldset>
<div class="actions"><button type="submit">Download</button><a href="${back}">Cancel</a></div></form></div>`,
      ),
    );
  });

  const downloads = new ConcurrencySlots(DOWNLOADS);

  // The file: streamed as it is read, page by page, from one snapshot.
  scope.get('/accounts/:account/members/export/file', async (request, reply) => {
    const seen = await exporting(request, reply);
    if (!seen) return reply;
    const { account, chrome, query } = seen;
    const format = queryParams(request).get('format') ?? 'csv';
    const back = { href: `${membersPath(account.name)}/export?${new URLSearchParams(query)}`, text: 'Back to the export' };
    if (format !== 'csv' && format !== 'jsonl')
      return kit.send(reply, 400, messagePage('Not exported', 'Invalid parameter: format: csv or jsonl.', chrome, back));
    const now = kit.clock();
    const filters = filterOf(query, now);
    if ('error' in filters) return kit.send(reply, 400, messagePage('Not exported', filters.error, chrome, back));
    const fields = columnsOf(query);
    let release: () => void;
    try {
      release = await downloads.take(account.id);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return kit.send(
        reply.header('retry-after', '5'),
        503,
        messagePage('Busy', 'Another export of this account (or two of others) is being downloaded: try again when it ends.', chrome, back),
      );
    }
    const out = new PassThrough();
    let taken = 0;
    out.on('data', (chunk: Buffer) => (taken += chunk.length));
    out.once('close', release);
    cutOffWhenStalled(request, reply, out, () => taken, kit.stallTimeoutMs, 'console export');
    // A client that goes away ends the stream (Fastify destroys it), which ends the reading
    // and releases the snapshot; a failure of the store cuts the download short, logged.
    kit.exporter.write(account, format, out, { selection: { filters, now, profileFields: fields }, columns: fileColumns(fields) }).catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') request.log.error({ err: error }, 'console export failed');
      out.destroy(error as Error);
    });
    const day = new Date(now).toISOString().slice(0, 10);
    const name = `${account.name.replace(/[^A-Za-z0-9_.-]/g, '_')}-members-${day}.${format}`;
    return reply.type(FORMATS[format].type).header('content-disposition', `attachment; filename="${name}"`).send(out);
  });
}
