import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { LoginThrottle } from '../auth/lockout.js';
import { foldKey, type Member, type MemberStatus, type NewMember, type RegType, type ExpiryAction } from '../members/member.js';
import type {
  LoginEvent,
  LoginRecording,
  MemberChanges,
  MemberHousekeeping,
  MemberInsertion,
  MemberListing,
  MemberListQuery,
  MemberSelector,
  MemberStore,
  MemberUpdate,
  SuccessfulLogin,
} from '../members/member-store.js';
import type { EngineConnection } from './dialects/dialect.js';
import { listMembers } from './member-listing.js';
import { exportMembers, findLoginIds, writeImport } from './member-transfer.js';
import { expireDue, updateMembers, valueKeyOf } from './member-updates.js';
import type { Database, MemberTable } from './schema.js';
import { IMPORT_DEFAULTS, type ImportedMember, type ImportWrite, type MemberExport } from '../members/transfer.js';

type MemberRow = Selectable<MemberTable>;

/** The one row-to-domain conversion for members. */
export function toMember(row: MemberRow): Member {
  return {
    id: row.id,
    accountId: row.account_id,
    login: row.login,
    email: row.email,
    passwordHash: row.password_hash,
    status: row.status as MemberStatus,
    regType: row.reg_type as RegType,
    regAt: row.reg_at,
    regIp: row.reg_ip,
    urlOk: row.url_ok,
    urlFail: row.url_fail,
    timeExpiry:
      row.exp_time_mode !== null && row.exp_time_at !== null ? { action: row.exp_time_mode as ExpiryAction, at: row.exp_time_at } : null,
    loginExpiry:
      row.exp_logins_mode !== null && row.exp_logins_left !== null
        ? { action: row.exp_logins_mode as ExpiryAction, left: row.exp_logins_left }
        : null,
    loginCount: row.login_count,
    lastLoginAt: row.last_login_at,
    lastLoginIp: row.last_login_ip,
    deletedAt: row.deleted_at,
    emailVerifiedAt: row.email_verified_at,
    billing: {
      pc: row.bill_pc,
      id: row.bill_id,
      item: row.bill_item,
      cust: row.bill_cust,
      subscr: row.bill_subscr,
      qty: row.bill_qty,
    },
  };
}

/**
 * The row of a new member, whichever way it comes (the API, an import): what it does not
 * give takes the defaults of an import; `now` stamps the row (and a deletion without a time).
 */
export function memberRow(accountId: number, member: ImportedMember, now: number): Insertable<MemberTable> {
  const status = member.status ?? IMPORT_DEFAULTS.status;
  const b = member.billing ?? {};
  return {
    ...(member.id === undefined ? {} : { id: member.id }),
    account_id: accountId,
    login: member.login,
    login_key: foldKey(member.login),
    email: member.email!,
    email_key: foldKey(member.email!),
    password_hash: member.passwordHash!,
    status,
    reg_type: member.regType ?? IMPORT_DEFAULTS.regType,
    reg_at: member.regAt ?? now,
    reg_ip: member.regIp ?? null,
    url_ok: member.urlOk ?? null,
    url_fail: member.urlFail ?? null,
    exp_time_mode: member.timeExpiry?.action ?? null,
    exp_time_at: member.timeExpiry?.at ?? null,
    exp_logins_mode: member.loginExpiry?.action ?? null,
    exp_logins_left: member.loginExpiry?.left ?? null,
    login_count: member.loginCount ?? 0,
    last_login_at: member.lastLoginAt ?? null,
    last_login_ip: member.lastLoginIp ?? null,
    deleted_at: status === 'D' ? (member.deletedAt ?? now) : null,
    email_verified_at: member.emailVerifiedAt ?? null,
    bill_pc: b.pc ?? null,
    bill_id: b.id ?? null,
    bill_item: b.item ?? null,
    bill_cust: b.cust ?? null,
    bill_subscr: b.subscr ?? null,
    bill_qty: b.qty ?? null,
    updated_at: now,
  };
}

export class MemberRepository implements MemberStore {
  private readonly db: Kysely<Database>;

  constructor(private readonly connection: EngineConnection) {
    this.db = connection.db;
  }

  async insertMember(accountId: number, member: NewMember): Promise<MemberInsertion> {
    try {
      const id = await this.db.transaction().execute(async (trx) => {
        const { id } = await trx
          .insertInto('members')
          .values(memberRow(accountId, member, member.regAt))
          .returning('id')
          .executeTakeFirstOrThrow();
        if (member.profile.size > 0) {
          await trx
            .insertInto('member_fields')
            .values([...member.profile].map(([name, value]) => ({ member_id: id, account_id: accountId, name, value, value_key: valueKeyOf(value) })))
            .execute();
        }
        return id;
      });
      return { kind: 'created', id };
    } catch (error) {
      if (this.connection.classifyError(error) === 'unique-violation') return { kind: 'login-taken' };
      throw error;
    }
  }

  async loginTaken(accountId: number, login: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('members')
      .select('id')
      .where('account_id', '=', accountId)
      .where('login_key', '=', foldKey(login))
      .executeTakeFirst();
    return row !== undefined;
  }

  async findMemberByLogin(accountId: number, login: string): Promise<Member | undefined> {
    const row = await this.db
      .selectFrom('members')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('login_key', '=', foldKey(login))
      .executeTakeFirst();
    return row && toMember(row);
  }

  async findMemberById(accountId: number, memberId: number): Promise<Member | undefined> {
    const row = await this.db
      .selectFrom('members')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', '=', memberId)
      .executeTakeFirst();
    return row && toMember(row);
  }

  async getProfile(accountId: number, memberId: number): Promise<Map<string, string>> {
    const rows = await this.db
      .selectFrom('member_fields')
      .select(['name', 'value'])
      .where('account_id', '=', accountId)
      .where('member_id', '=', memberId)
      .orderBy('name')
      .execute();
    return new Map(rows.map((r) => [r.name, r.value]));
  }

  recordLogin(accountId: number, memberId: number, login: SuccessfulLogin & { throttleIp: string }): Promise<LoginRecording> {
    const { at } = login;
    return this.db.transaction().execute(async (trx) => {
      // Columns on the right-hand side read the values from before this update, so the
      // allowance check and the decrement are one atomic step on both engines.
      const updated = await trx
        .updateTable('members')
        .set({
          login_count: sql`login_count + 1`,
          last_login_at: at,
          last_login_ip: login.ip,
          exp_logins_left: sql`case when exp_logins_mode is null then exp_logins_left else exp_logins_left - 1 end`,
          status: sql`case when exp_logins_mode is not null and exp_logins_left <= 1 then exp_logins_mode else status end`,
          deleted_at: sql`case when exp_logins_mode = 'D' and exp_logins_left <= 1 then cast(${at} as bigint) else deleted_at end`,
          updated_at: at,
        })
        .where('account_id', '=', accountId)
        .where('id', '=', memberId)
        .where('status', '=', 'A')
        .where((eb) => eb.or([eb('exp_time_at', 'is', null), eb('exp_time_at', '>', at)]))
        .where((eb) => eb.or([eb('exp_logins_mode', 'is', null), eb('exp_logins_left', '>', 0)]))
        .returning('status')
        .executeTakeFirst();
      if (!updated) return { kind: 'not-active' } as const;
      await trx
        .insertInto('sessions')
        .values({ digest: login.sessionDigest, account_id: accountId, member_id: memberId, created_at: at, ip: login.ip })
        .execute();
      await trx
        .deleteFrom('login_throttle')
        .where('account_id', '=', accountId)
        .where('member_id', '=', memberId)
        .where('ip', '=', login.throttleIp)
        .execute();
      if (login.ip !== null) {
        await trx
          .insertInto('login_events')
          .values({ account_id: accountId, member_id: memberId, login: login.login, ip: login.ip, at, outcome: 'ok' })
          .execute();
      }
      return { kind: 'recorded', status: updated.status as MemberStatus } as const;
    });
  }

  async findThrottle(accountId: number, memberId: number, ip: string): Promise<LoginThrottle | undefined> {
    const row = await this.db
      .selectFrom('login_throttle')
      .select(['failures', 'last_failure_at', 'locked_until'])
      .where('account_id', '=', accountId)
      .where('member_id', '=', memberId)
      .where('ip', '=', ip)
      .executeTakeFirst();
    return row && { failures: row.failures, lastFailureAt: row.last_failure_at, lockedUntil: row.locked_until };
  }

  recordLoginFailure(
    accountId: number,
    memberId: number,
    ip: string,
    at: number,
    resetBefore: number,
    lockUntil: (failures: number) => number,
  ): Promise<LoginThrottle | undefined> {
    return this.db.transaction().execute(async (trx) => {
      // Inserted from the member's own row, so a member of another account counts nothing.
      const counted = await trx
        .insertInto('login_throttle')
        .columns(['account_id', 'member_id', 'ip', 'failures', 'last_failure_at', 'locked_until'])
        .expression((eb) =>
          eb
            .selectFrom('members')
            .select([
              'account_id',
              'id',
              sql.val(ip).as('ip'),
              sql.lit(1).as('failures'),
              sql<number>`cast(${at} as bigint)`.as('last_failure_at'),
              sql<number>`cast(0 as bigint)`.as('locked_until'),
            ])
            .where('account_id', '=', accountId)
            .where('id', '=', memberId),
        )
        .onConflict((oc) =>
          oc.columns(['member_id', 'ip']).doUpdateSet({
            failures: sql`case when login_throttle.last_failure_at < ${resetBefore} then 1 else login_throttle.failures + 1 end`,
            last_failure_at: at,
          }),
        )
        .returning(['failures', 'locked_until'])
        .executeTakeFirst();
      if (!counted) return undefined;
      let lockedUntil = counted.locked_until;
      const until = lockUntil(counted.failures);
      if (until > lockedUntil) {
        await trx
          .updateTable('login_throttle')
          .set({ locked_until: until })
          .where('member_id', '=', memberId)
          .where('ip', '=', ip)
          .execute();
        lockedUntil = until;
      }
      return { failures: counted.failures, lastFailureAt: at, lockedUntil };
    });
  }

  async recordLoginEvent(accountId: number, event: LoginEvent): Promise<void> {
    await this.db
      .insertInto('login_events')
      .values((eb) => ({
        account_id: accountId,
        // Only a member of this account can be named in its events.
        member_id:
          event.memberId === null
            ? null
            : eb.selectFrom('members').select('id').where('account_id', '=', accountId).where('id', '=', event.memberId),
        login: event.login,
        ip: event.ip,
        at: event.at,
        outcome: event.outcome,
      }))
      .execute();
  }

  async replacePasswordHash(accountId: number, memberId: number, oldHash: string, newHash: string): Promise<void> {
    await this.db
      .updateTable('members')
      .set({ password_hash: newHash })
      .where('account_id', '=', accountId)
      .where('id', '=', memberId)
      .where('password_hash', '=', oldHash)
      .execute();
  }

  async markEmailVerified(accountId: number, memberId: number, at: number): Promise<boolean> {
    const result = await this.db
      .updateTable('members')
      .set({ email_verified_at: sql`coalesce(email_verified_at, cast(${at} as bigint))`, updated_at: at })
      .where('account_id', '=', accountId)
      .where('id', '=', memberId)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  updateMembers(accountId: number, selector: MemberSelector, changes: MemberChanges, now: number): Promise<MemberUpdate> {
    return updateMembers(this.connection, accountId, selector, changes, now);
  }

  listMembers(accountId: number, query: MemberListQuery, now: number, consume: (listing: MemberListing) => Promise<void>): Promise<void> {
    return listMembers(this.connection, accountId, query, now, consume);
  }

  expireDue(accountId: number, now: number): Promise<number> {
    return expireDue(this.db, now, accountId);
  }

  findLoginIds(accountId: number, logins: readonly string[]): Promise<Map<string, number>> {
    return findLoginIds(this.db, accountId, logins);
  }

  writeImport(accountId: number, write: ImportWrite): Promise<void> {
    return writeImport(this.connection, accountId, write);
  }

  exportMembers(accountId: number, consume: (exported: MemberExport) => Promise<void>): Promise<void> {
    return exportMembers(this.connection, accountId, consume);
  }
}

/** Upkeep across all accounts, for the sweep. */
export class MemberHousekeepingRepository implements MemberHousekeeping {
  private readonly db: Kysely<Database>;

  constructor(private readonly connection: EngineConnection) {
    this.db = connection.db;
  }

  refreshStatistics(): Promise<void> {
    return this.connection.refreshStatistics();
  }

  exclusively<T>(name: string, work: () => Promise<T>): Promise<T | undefined> {
    return this.connection.exclusively(name, work);
  }

  expireAllDue(now: number): Promise<number> {
    return expireDue(this.db, now);
  }

  async purgeDeleted(before: number, limit: number): Promise<number> {
    // In batches, so that a purge of many members never holds the store for long.
    const result = await this.db
      .deleteFrom('members')
      .where('id', 'in', (eb) =>
        eb.selectFrom('members').select('id').where('status', '=', 'D').where('deleted_at', '<', before).limit(limit),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async purgeSessions(before: number): Promise<number> {
    const result = await this.db.deleteFrom('sessions').where('created_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async purgeLoginEvents(before: number): Promise<number> {
    const result = await this.db.deleteFrom('login_events').where('at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async foldMemberCounts(): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      // Exactly the deltas deleted are folded: one that commits meanwhile waits for the next sweep.
      const moved = await trx.deleteFrom('member_count_deltas').returning(['account_id', 'status', 'n']).execute();
      const sums = new Map<string, { account_id: number; status: string; n: number }>();
      for (const delta of moved) {
        const key = `${delta.account_id}:${delta.status}`;
        const sum = sums.get(key) ?? { account_id: delta.account_id, status: delta.status, n: 0 };
        sum.n += Number(delta.n);
        sums.set(key, sum);
      }
      const rows = [...sums.values()].sort((a, b) => a.account_id - b.account_id || a.status.localeCompare(b.status));
      if (rows.length > 0) {
        await trx
          .insertInto('member_counts')
          .values(rows)
          .onConflict((oc) => oc.columns(['account_id', 'status']).doUpdateSet((eb) => ({ n: sql<number>`${eb.ref('member_counts.n')} + ${eb.ref('excluded.n')}` })))
          .execute();
      }
      return moved.length;
    });
  }

  async purgeRateLimits(before: number): Promise<number> {
    const result = await this.db.deleteFrom('rate_limits').where('expire', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async purgeThrottles(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('login_throttle')
      .where('last_failure_at', '<', before)
      .where('locked_until', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
