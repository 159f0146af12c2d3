/**
 * The export of an account's members (editors and owners): the members a filter of the members
 * page finds, in the columns the page shows, as CSV or JSON Lines, streamed from one read
 * snapshot while the client reads (no password hashes: `member-api export` makes a whole copy).
 */
import { PassThrough } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ConcurrencySlots } from '../../http/concurrency.js';
import { ApiError, HttpError } from '../../http/errors.js';
import { queryParams } from '../../http/params.js';
import { cutOffWhenStalled } from '../../http/stall-watchdog.js';
import type { MemberFilters } from '../../members/member-store.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { columnsOf, filtersOf, readable } from '../forms.js';
import { membersPath } from '../paths.js';
import { send, type Params } from '../replies.js';
import { messagePage, t, type Chrome } from '../views/layout.js';
import { exportPage, fileColumns, FORMATS } from '../views/transfer.js';

/** The members page's query that makes its filter, its order and its columns: what the export carries over. */
function filterQuery(request: FastifyRequest): Params {
  const skipped = new Set(['after', 'before', 'last', 'at', 'done', 'changed', 'format']);
  return Object.fromEntries([...queryParams(request)].filter(([name, value]) => !skipped.has(name) && value !== ''));
}

/**
 * Downloads at once: each holds a read snapshot (a reader thread, or a connection) while its
 * client reads. Two in all, one per account, beside /list/'s own (the store keeps two readers
 * spare for the console); another waits a moment, then is told to try again.
 */
const DOWNLOADS = { total: 2, perAccount: 1, waitMs: 1000 };

export async function exportSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
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
  function exporting(request: FastifyRequest) {
    const seen = onAccount(request);
    return { account: seen.account, chrome: { operator: seen.operator, account: seen.account.name } satisfies Chrome, query: filterQuery(request) };
  }

  // What will be exported, and in which format: a page, so that the choice is made without script.
  scope.get('/export', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = exporting(request);
    const { account, chrome, query } = seen;
    const search = new URLSearchParams(query).toString();
    const back = `${membersPath(account.name)}${search ? `?${search}` : ''}`;
    const filters = filterOf(query, deps.clock());
    if ('error' in filters) return send(reply, 400, messagePage(t('notExported'), filters.error, chrome, { href: back, text: t('backToTheMembers') }));
    const { total } = await deps.members.pageMembers(account, { filters, order: 'id', limit: 1, profileFields: [] });
    const columns = fileColumns(columnsOf(query));
    return send(reply, 200, exportPage(chrome, { account: account.name, back, search, total, columns, query }));
  });

  const downloads = new ConcurrencySlots(DOWNLOADS);

  // The file: streamed as it is read, page by page, from one snapshot.
  scope.get('/export/file', { config: { access: 'editor' } }, async (request, reply) => {
    const seen = exporting(request);
    const { account, chrome, query } = seen;
    const format = queryParams(request).get('format') ?? 'csv';
    const back = { href: `${membersPath(account.name)}/export?${new URLSearchParams(query)}`, text: t('backToExport') };
    if (format !== 'csv' && format !== 'jsonl') return send(reply, 400, messagePage(t('notExported'), t('invalidFormat'), chrome, back));
    const now = deps.clock();
    const filters = filterOf(query, now);
    if ('error' in filters) return send(reply, 400, messagePage(t('notExported'), filters.error, chrome, back));
    const fields = columnsOf(query);
    let release: () => void;
    try {
      release = await downloads.take(account.id);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return send(reply.header('retry-after', '5'), 503, messagePage(t('busy'), t('exportBusy'), chrome, back));
    }
    const out = new PassThrough();
    let taken = 0;
    out.on('data', (chunk: Buffer) => (taken += chunk.length));
    out.once('close', release);
    cutOffWhenStalled(request, reply, out, () => taken, deps.stallTimeoutMs, 'console export');
    // A client that goes away ends the stream (Fastify destroys it), which ends the reading
    // and releases the snapshot; a failure of the store cuts the download short, logged.
    deps.exporter.write(account, format, out, { selection: { filters, now, profileFields: fields }, columns: fileColumns(fields) }).catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') request.log.error({ err: error }, 'console export failed');
      out.destroy(error as Error);
    });
    const day = new Date(now).toISOString().slice(0, 10);
    const name = `${account.name.replace(/[^A-Za-z0-9_.-]/g, '_')}-members-${day}.${format}`;
    return reply.type(FORMATS[format].type).header('content-disposition', `attachment; filename="${name}"`).send(out);
  });
}
