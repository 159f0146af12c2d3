/** Members and their profiles, for the member services: the API's storage. */
import type { ExpressionBuilder, Transaction } from 'kysely';
import type { Database } from './schema.js';
import { foldKey, type Member, type NewMember } from '../members/member.js';
import type {
  Registered,
  MemberChanges,
  MemberListing,
  MemberListQuery,
  MemberPage,
  MemberPageQuery,
  MemberSelector,
  MemberStore,
  MemberUpdate,
  Selection,
  UpdateLimits,
} from '../members/member-store.js';
import { writerProcedure } from './dialects/dialect.js';
import { Repository, type StoreConnection } from './writes.js';
import { listMembers } from './member-listing.js';
import { pageMembers } from './members-paging.js';
import { memberRow, toMember } from './member-rows.js';
import { profileBytesHeld, selectorCondition, updateMembersProcedure, valueKeyOf } from './member-updates.js';
import { queueMail } from './mail-repository.js';
import type { MailRequest } from '../mail/mail.js';
import { createdEvent, type EventOrigin } from '../events/event.js';
import { registeredEvent, verifiedEvent } from '../events/member-events.js';
import { appendEvents } from './event-repository.js';
import { eraseMemberProcedure } from './member-erasure.js';

/**
 * A new member with its profile, its mail and its `member.created` (unless `origin` is
 * undefined: EVENTS=off), and `member.registered` when it came from the registration page;
 * answers its id. A login taken meanwhile (the unique index decides
 * races) leaves as UniqueViolation.
 */
export const insertMemberProcedure = writerProcedure(
  'members.insert',
  (
    { db },
    accountId: number,
    member: NewMember,
    origin: EventOrigin | undefined,
    mail: MailRequest | undefined,
    registration: Registered | undefined,
  ): Promise<number> => db.transaction().execute((trx) => insertMemberIn(trx, accountId, member, origin, mail, registration)),
);

/** insertMemberProcedure's work, inside a transaction the caller holds (a paid checkout's member is made with its payment). */
export async function insertMemberIn(
  trx: Transaction<Database>,
  accountId: number,
  member: NewMember,
  origin: EventOrigin | undefined,
  mail: MailRequest | undefined,
  registration: Registered | undefined,
): Promise<number> {
  const row = await trx.insertInto('members').values(memberRow(accountId, member, member.regAt)).returningAll().executeTakeFirstOrThrow();
  const { id } = row;
  if (member.profile.size > 0) {
    await trx
      .insertInto('member_fields')
      .values([...member.profile].map(([name, value]) => ({ member_id: id, account_id: accountId, name, value, value_key: valueKeyOf(value) })))
      .execute();
  }
  if (mail) await queueMail(trx, accountId, [id], mail, member.regAt)!.execute();
  if (registration?.approval)
    await trx
      .insertInto('pending_registrations')
      .values({ member_id: id, account_id: accountId, created_at: member.regAt, language: registration.language ?? '' })
      .execute();
  if (origin) {
    const created = createdEvent(toMember(row), member.profile, member.regAt, origin);
    const registered = registration && registeredEvent({ id, login: row.login }, registration.approval, member.regAt, origin);
    await appendEvents(trx, accountId, registered ? [created, registered] : [created]);
  }
  return id;
}

/**
 * The member's address marked verified, if it is still the address the link was for (answers
 * false otherwise), with `member.verified` the first time (unless `origin` is undefined).
 */
export const markEmailVerifiedProcedure = writerProcedure(
  'members.markEmailVerified',
  ({ db }, accountId: number, memberId: number, email: string, at: number, origin: EventOrigin | undefined): Promise<boolean> =>
    db.transaction().execute(async (trx) => {
      const before = await trx
        .selectFrom('members')
        .select(['login', 'email', 'email_key', 'email_verified_at'])
        .where('account_id', '=', accountId)
        .where('id', '=', memberId)
        .executeTakeFirst();
      // Changed since the link was checked: the link was for the address before.
      if (!before || before.email_key !== foldKey(email)) return false;
      // The first verification counts (and is told); following the link again changes nothing.
      if (before.email_verified_at !== null) return true;
      await trx.updateTable('members').set({ email_verified_at: at, updated_at: at }).where('account_id', '=', accountId).where('id', '=', memberId).execute();
      if (origin) await appendEvents(trx, accountId, [verifiedEvent({ id: memberId, login: before.login }, before.email, at, origin)]);
      return true;
    }),
);

export class MemberRepository extends Repository implements MemberStore {
  constructor(
    connection: StoreConnection,
    /** Whether changes write their events (the EVENTS setting). */
    private readonly events = true,
  ) {
    super(connection);
  }

  insertMember(accountId: number, member: NewMember, origin: EventOrigin, mail?: MailRequest, registration?: Registered): Promise<number> {
    return this.connection.transact(insertMemberProcedure, accountId, member, this.events ? origin : undefined, mail, registration);
  }

  async findMembers(accountId: number, selector: MemberSelector, limit: number): Promise<Member[]> {
    const rows = await this.reads
      .selectFrom('members')
      .selectAll()
      .where(selectorCondition(accountId, selector, this.connection.search))
      .where('status', '!=', 'D')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toMember);
  }

  async pendingRegistrations(accountId: number, limit: number): Promise<{ ids: number[]; total: number }> {
    // The oldest first, by the (account, time) index; the count read apart (it grows with them).
    const waiting = (eb: ExpressionBuilder<Database, 'pending_registrations'>) =>
      eb.and([
        eb('pending_registrations.account_id', '=', accountId),
        eb.exists(
          eb.selectFrom('members').select('members.id').whereRef('members.id', '=', 'pending_registrations.member_id').where('members.status', '=', 'S'),
        ),
      ]);
    const rows = await this.reads
      .selectFrom('pending_registrations')
      .select('member_id')
      .where(waiting)
      .orderBy('created_at')
      .orderBy('member_id')
      .limit(limit)
      .execute();
    const [count] = await this.connection.readApart(
      this.build
        .selectFrom('pending_registrations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(waiting),
    );
    return { ids: rows.map((row) => Number(row.member_id)), total: Number(count?.n ?? 0) };
  }

  async takePendingRegistration(accountId: number, memberId: number): Promise<{ language: string } | undefined> {
    const result = await this.connection.write(
      this.build.deleteFrom('pending_registrations').where('account_id', '=', accountId).where('member_id', '=', memberId).returning('language'),
    );
    return result.rows[0];
  }

  async countSelected(accountId: number, selector: MemberSelector): Promise<Selection> {
    const [row] = await this.connection.readApart(
      this.build
        .selectFrom('members')
        .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('id').as('id_sum')])
        .where(selectorCondition(accountId, selector, this.connection.search)),
    );
    return { count: Number(row?.count ?? 0), idSum: Number(row?.id_sum ?? 0) };
  }

  async loginTaken(accountId: number, login: string): Promise<boolean> {
    const row = await this.reads
      .selectFrom('members')
      .select('id')
      .where(this.connection.search.memberIs(accountId, 'login_key', foldKey(login), 'members'))
      .executeTakeFirst();
    return row !== undefined;
  }

  async findMemberByLogin(accountId: number, login: string): Promise<Member | undefined> {
    const row = await this.reads
      .selectFrom('members')
      .selectAll()
      .where(this.connection.search.memberIs(accountId, 'login_key', foldKey(login), 'members'))
      .executeTakeFirst();
    return row && toMember(row);
  }

  async findMembersStartingWith(accountId: number, column: 'login_key' | 'email_key', prefix: string, limit: number): Promise<Member[]> {
    const found = await this.connection.search.idsStartingWith(accountId, column, foldKey(prefix), limit).execute(this.reads);
    const ids = found.rows.map((row) => Number(row.id));
    if (ids.length === 0) return [];
    const rows = await this.reads.selectFrom('members').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).execute();
    const byId = new Map(rows.map((row) => [Number(row.id), toMember(row)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async findProfile(accountId: number, memberId: number): Promise<Map<string, string>> {
    // Bounded: a member holds at most MAX_PROFILE_FIELDS fields.
    const rows = await this.reads
      .selectFrom('member_fields')
      .select(['name', 'value'])
      .where('account_id', '=', accountId)
      .where('member_id', '=', memberId)
      .orderBy('name')
      .execute();
    return new Map(rows.map((row) => [row.name, row.value]));
  }

  async findMemberById(accountId: number, memberId: number): Promise<Member | undefined> {
    const row = await this.reads.selectFrom('members').selectAll().where('account_id', '=', accountId).where('id', '=', memberId).executeTakeFirst();
    return row && toMember(row);
  }

  eraseMember(accountId: number, memberId: number, now: number, origin: EventOrigin): Promise<string | undefined> {
    return this.connection.transact(eraseMemberProcedure, accountId, memberId, now, this.events ? origin : undefined);
  }

  markEmailVerified(accountId: number, memberId: number, email: string, at: number, origin: EventOrigin): Promise<boolean> {
    return this.connection.transact(markEmailVerifiedProcedure, accountId, memberId, email, at, this.events ? origin : undefined);
  }

  updateMembers(
    accountId: number,
    selector: MemberSelector,
    changes: MemberChanges,
    now: number,
    limits: UpdateLimits,
    origin: EventOrigin,
  ): Promise<MemberUpdate> {
    return this.connection.transact(updateMembersProcedure, accountId, selector, changes, now, limits, this.events ? origin : undefined);
  }

  async profileBytes(accountId: number): Promise<number> {
    return Number((await profileBytesHeld(this.reads, accountId).executeTakeFirstOrThrow()).bytes);
  }

  listMembers(accountId: number, query: MemberListQuery, now: number): MemberListing {
    return listMembers(this.connection, accountId, query, now);
  }

  pageMembers(accountId: number, query: MemberPageQuery, now: number): Promise<MemberPage> {
    return pageMembers(this.connection, accountId, query, now);
  }
}
