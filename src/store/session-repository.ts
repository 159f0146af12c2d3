/** The sessions /login/ hands out, as /session/ and /logout/ need them. */
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { FoundSession, SessionStore } from '../members/sessions.js';
import { profileColumn } from '../members/record-template.js';
import { toMember } from './member-rows.js';
import type { Database } from './schema.js';

export class SessionRepository implements SessionStore {
  constructor(
    private readonly db: Kysely<Database>,
    /** Short reads outside any transaction (see EngineConnection.reads). */
    private readonly reads: Kysely<Database> = db,
  ) {}

  async findSession(accountId: number, digest: string, profileFields: readonly string[]): Promise<FoundSession | undefined> {
    // One index look-up (the digest is the primary key), its member by primary key.
    const row = await this.reads
      .selectFrom('sessions')
      .innerJoin('members', 'members.id', 'sessions.member_id')
      .selectAll('members')
      .select(['sessions.created_at as session_created_at', 'sessions.seen_at as session_seen_at'])
      .where('sessions.digest', '=', digest)
      .where('sessions.account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) return undefined;
    const { session_created_at, session_seen_at, ...memberRow } = row;
    const listed: Record<string, unknown> = { ...memberRow };
    if (profileFields.length > 0) {
      const values = await this.reads
        .selectFrom('member_fields')
        .select(['name', 'value'])
        .where('member_id', '=', memberRow.id)
        .where('name', 'in', [...profileFields])
        .execute();
      const byName = new Map(values.map((value) => [value.name, value.value]));
      profileFields.forEach((name, index) => (listed[profileColumn(index)] = byName.get(name)));
    }
    return {
      createdAt: Number(session_created_at),
      seenAt: session_seen_at === null ? null : Number(session_seen_at),
      member: toMember(memberRow),
      row: listed as FoundSession['row'],
    };
  }

  async touchSession(digest: string, at: number): Promise<void> {
    await this.db.updateTable('sessions').set({ seen_at: at }).where('digest', '=', digest).execute();
  }

  async endSession(accountId: number, digest: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('digest', '=', digest).where('account_id', '=', accountId).execute();
  }
}

/** Ends the sessions of the members `memberIds` finds (a subquery or a list), inside a change's transaction. */
export async function endSessionsOf(trx: Kysely<Database>, accountId: number, memberIds: readonly number[] | SelectQueryBuilder<Database, 'members', { id: number }>): Promise<void> {
  if (Array.isArray(memberIds) && memberIds.length === 0) return;
  await trx.deleteFrom('sessions').where('account_id', '=', accountId).where('member_id', 'in', memberIds).execute();
}
