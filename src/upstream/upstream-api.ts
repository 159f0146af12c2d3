/**
 * Talking to the upstream: it speaks this very API, so the typed client shipped to
 * integrators (client/) is the one used, with the link's credentials. A login check waits at
 * most UPSTREAM_LOGIN_TIMEOUT_MS; a list is read as it streams, one member at a time.
 */
import { MemberApiClient, MemberApiError, MemberApiHttpError, MemberApiNetworkError, type MemberRecord } from '../client/index.js';
import { profileColumnName } from '../import-export/import-row.js';
import { MEMBER_FIELDS } from '../members/member-fields.js';
import type { UpstreamLinkSettings } from './upstream-link.js';
import { trimTrailing } from '../common/text.js';

/** An upstream that has not answered a login in this long answers FAIL (issue: ≤ 5 s). */
export const UPSTREAM_LOGIN_TIMEOUT_MS = 4_500;

/** The upstream's base as the client wants it: the URL an operator gives may end in `/api2`. */
export function upstreamBase(url: string): string {
  return trimTrailing(url, '/').replace(/\/api2$/, '');
}

export function upstreamClient(link: Pick<UpstreamLinkSettings, 'url' | 'user' | 'key'>, timeoutMs?: number): MemberApiClient {
  return new MemberApiClient({
    baseUrl: upstreamBase(link.url),
    user: link.user,
    apiKey: link.key,
    headers: { 'user-agent': 'member-api (upstream link)' },
    fetch: timeoutMs === undefined ? undefined : (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
  });
}

/** An error from talking to the upstream (rather than from this store or a bug). */
export function isUpstreamError(error: unknown): boolean {
  return (
    error instanceof MemberApiHttpError ||
    error instanceof MemberApiNetworkError ||
    error instanceof MemberApiError ||
    (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
  );
}

/** What went wrong talking to the upstream, in one line (for the link's last error and the log). */
export function describeUpstreamError(error: unknown): string {
  if (error instanceof MemberApiHttpError || error instanceof MemberApiNetworkError || error instanceof MemberApiError) return error.message;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'no answer in time';
  return error instanceof Error ? error.message : String(error);
}

/**
 * The list token that carries each built-in field the seed's /list/ gives (the fullest one:
 * `reg_time`, not `reg_date`), and the import column it is read back as. Fields /list/ does
 * not give (login-count expirations, an expiration's action, the member's own URLs, the
 * login count, the password) cannot be brought over this way.
 */
const CARRIED: ReadonlyArray<{ readonly token: string; readonly column: string }> = MEMBER_FIELDS.flatMap((field) => {
  const tokens = Object.entries(field.list ?? {});
  const fullest = tokens.find(([, format]) => format === 'date-time') ?? tokens[0];
  return fullest && field.file ? [{ token: fullest[0], column: field.file.name }] : [];
});

/** The import column of the deletion time, which /list/ does not give (the migration bounds it: deletion-times.ts). */
export const DELETED_TIME_COLUMN = MEMBER_FIELDS.find((field) => field.place === 'deletedAt')!.file!.name;

/** The `record` that asks the upstream for every built-in field and these profile fields. */
export function migrationRecord(profileFields: readonly string[]): string {
  return [...CARRIED.map((c) => c.token), ...profileFields].map((name) => `{${name}}`).join('');
}

/** A listed member as the importer's columns (values as the upstream wrote them). */
export function importValues(record: MemberRecord, profileFields: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  const fields = record as Record<string, string | undefined>;
  for (const { token, column } of CARRIED) {
    const value = fields[token];
    if (value !== undefined) values.set(column, value);
  }
  for (const name of profileFields) {
    const value = fields[name];
    if (value !== undefined) values.set(profileColumnName(name), value);
  }
  return values;
}
