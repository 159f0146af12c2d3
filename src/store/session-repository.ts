/** The sessions /login/ hands out, as /session/ and /logout/ need them. */
import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { FoundSession, SessionStore, SessionSummary } from '../members/sessions.js';
import { profileColumn, type ListedRow } from '../members/record-template.js';
import type { ExpiryAction, MemberStatus } from '../members/member.js';
import type { Database } from './schema.js';
import { CoalescedReads } from './coalesced-reads.js';
import { Repository, type StoreConnection } from './writes.js';
import { hotRead } from './hot-reads.js';

/** A session's row with its member's: a few columns for a bare check, all of them for a record. */
type LookupRow = Pick<Selectable<Database['members']>, 'id' | 'login' | 'email' | 'status' | 'exp_time_at' | 'exp_time_mode' | 'deleted_at'> & {
  session_digest: string;
  session_account_id: number;
  session_created_at: number;
  session_seen_at: number | null;
  session_remember: number;
};

/**
 * The look-ups, compiled once (hot-reads.ts): a session check is on every page of an
 * integrator's site, and building the query would cost more than running it.
 */
function lookupQueries(connection: StoreConnection) {
  const columns = [
    'members.id',
    'members.login',
    'members.email',
    'members.status',
    'members.exp_time_at',
    'members.exp_time_mode',
    'members.deleted_at',
  ] as const;
  const base = connection.reads
    .selectFrom('sessions')
    .innerJoin('members', 'members.id', 'sessions.member_id')
    .select([
      'sessions.digest as session_digest',
      'sessions.account_id as session_account_id',
      'sessions.created_at as session_created_at',
      'sessions.seen_at as session_seen_at',
      'sessions.remember as session_remember',
    ]);
  type One = { digest: string; accountId: number };
  const one = (v: One) => base.where('sessions.digest', '=', v.digest).where('sessions.account_id', '=', v.accountId);
  const { splitKeys } = connection;
  return {
    brief: hotRead<LookupRow, One>('session_brief', (v) => one(v).select(columns).$castTo<LookupRow>()),
    // Where a read is a round trip: the checks that arrived together (CoalescedReads), their
    // digests (hex: never a space) in one parameter, each its own look-up by primary key.
    briefMany:
      splitKeys &&
      hotRead<LookupRow, { digests: string }>(
        'session_brief_many',
        (v) =>
          sql<LookupRow>`select found.* from ${splitKeys(sql.val(v.digests))} as asked(digest) cross join lateral (${base
            .select(columns)
            .where('sessions.digest', '=', sql.ref<string>('asked.digest'))
            .limit(sql.lit(1))}) as found`.compile(connection.reads),
      ),
    full: hotRead<LookupRow, One>('session_full', (v) => one(v).selectAll('members').$castTo<LookupRow>()),
  };
}

function foundOf(row: LookupRow): FoundSession {
  return {
    createdAt: Number(row.session_created_at),
    seenAt: row.session_seen_at === null ? null : Number(row.session_seen_at),
    remember: Number(row.session_remember) === 1,
    member: {
      id: Number(row.id),
      login: row.login,
      email: row.email,
      status: row.status as MemberStatus,
      timeExpiry: row.exp_time_at === null || row.exp_time_mode === null ? null : { at: Number(row.exp_time_at), action: row.exp_time_mode as ExpiryAction },
      deletedAt: row.deleted_at === null ? null : Number(row.deleted_at),
    },
  };
}

export class SessionRepository extends Repository implements SessionStore {
  private readonly lookups;
  /** Where a read is a round trip, bare checks asked together are one query; SQLite answers each at once. */
  private readonly briefs?: CoalescedReads<string, LookupRow>;

  constructor(connection: StoreConnection) {
    super(connection);
    const lookups = (this.lookups = lookupQueries(connection));
    const { briefMany } = lookups;
    if (briefMany) {
      this.briefs = new CoalescedReads(async (digests) => {
        const rows = await briefMany.run(connection, { digests: digests.join(' ') });
        return new Map(rows.map((row) => [row.session_digest, row]));
      });
    }
  }

  findSession(
    accountId: number,
    digest: string,
    record?: { readonly profileFields: readonly string[] },
  ): FoundSession | undefined | Promise<FoundSession | undefined> {
    // One index look-up (the digest is the primary key), its member by primary key.
    if (record) return this.findWithRecord(accountId, digest, record.profileFields);
    if (this.briefs) return this.briefs.get(digest).then((row) => (row && Number(row.session_account_id) === accountId ? foundOf(row) : undefined));
    const rows = this.lookups.brief.run(this.connection, { digest, accountId });
    return rows instanceof Promise ? rows.then(([row]) => row && foundOf(row)) : rows[0] && foundOf(rows[0]);
  }

  private async findWithRecord(accountId: number, digest: string, profileFields: readonly string[]): Promise<FoundSession | undefined> {
    const [row] = await this.lookups.full.run(this.connection, { digest, accountId });
    if (!row) return undefined;
    const found = foundOf(row);
    // The record's fields render from the row as /list/ renders its rows (the two session
    // columns beside the member's are never a record's).
    const listed = row as unknown as Record<string, unknown>;
    if (profileFields.length > 0) {
      const values = await this.reads
        .selectFrom('member_fields')
        .select(['name', 'value'])
        .where('member_id', '=', found.member.id)
        .where('name', 'in', [...profileFields])
        .execute();
      const byName = new Map(values.map((value) => [value.name, value.value]));
      profileFields.forEach((name, index) => (listed[profileColumn(index)] = byName.get(name)));
    }
    return { ...found, row: listed as ListedRow };
  }

  async touchSession(digest: string, at: number): Promise<void> {
    await this.connection.write(this.build.updateTable('sessions').set({ seen_at: at }).where('digest', '=', digest));
  }

  async endSession(accountId: number, digest: string): Promise<void> {
    await this.connection.write(this.build.deleteFrom('sessions').where('digest', '=', digest).where('account_id', '=', accountId));
  }

  async createSession(session: {
    accountId: number;
    memberId: number;
    digest: string;
    createdAt: number;
    ip: string | null;
    remember: boolean;
  }): Promise<void> {
    await this.connection.write(
      this.build.insertInto('sessions').values({
        digest: session.digest,
        account_id: session.accountId,
        member_id: session.memberId,
        created_at: session.createdAt,
        ip: session.ip,
        remember: session.remember ? 1 : 0,
      }),
    );
  }

  async endMemberSession(accountId: number, memberId: number, digest: string): Promise<boolean> {
    const result = await this.connection.write(
      this.build.deleteFrom('sessions').where('digest', '=', digest).where('account_id', '=', accountId).where('member_id', '=', memberId),
    );
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async listSessions(accountId: number, memberId: number, limit: number): Promise<SessionSummary[]> {
    const rows = await this.reads
      .selectFrom('sessions')
      .select(['digest', 'created_at', 'seen_at', 'ip', 'remember'])
      .where('account_id', '=', accountId)
      .where('member_id', '=', memberId)
      .orderBy('created_at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      digest: row.digest,
      createdAt: Number(row.created_at),
      seenAt: row.seen_at === null ? null : Number(row.seen_at),
      ip: row.ip,
      remember: Number(row.remember) === 1,
    }));
  }
}

/** Ends the sessions of the members `memberIds` finds (a subquery or a list), inside a change's transaction. */
export async function endSessionsOf(
  trx: Kysely<Database>,
  accountId: number,
  memberIds: readonly number[] | SelectQueryBuilder<Database, 'members', { id: number }>,
): Promise<void> {
  if (Array.isArray(memberIds) && memberIds.length === 0) return;
  await trx.deleteFrom('sessions').where('account_id', '=', accountId).where('member_id', 'in', memberIds).execute();
}
