/** Operators, their accounts, links and sessions in SQL. */
import { sql, type Kysely } from 'kysely';
import type { LockoutPolicy } from '../accounts/account.js';
import { countResetBefore, lockedUntilAfter } from '../auth/lockout.js';
import { foldKey } from '../members/member.js';
import { writerProcedure } from './dialects/dialect.js';
import { Repository } from './writes.js';
import {
  isRole,
  type Operator,
  type OperatorCredentials,
  type OperatorInvite,
  type OperatorLinkMail,
  type OperatorSession,
  type OperatorStore,
  type OperatorTwoStep,
  type Role,
} from '../operators/operator.js';
import type { Database } from './schema.js';
import { queueOperatorMail } from './mail-repository.js';

/** The operator of this address (made if new) given this role on the account; answers its id. */
export const grantOperatorProcedure = writerProcedure('operators.grant', ({ db }, email: string, accountId: number, role: Role, now: number): Promise<number> =>
  db.transaction().execute(async (trx) => {
    const key = foldKey(email);
    await trx
      .insertInto('operators')
      .values({ email, email_key: key, password_hash: null, created_at: now })
      .onConflict((oc) => oc.column('email_key').doNothing())
      .execute();
    const { id } = await trx.selectFrom('operators').select('id').where('email_key', '=', key).executeTakeFirstOrThrow();
    await trx
      .insertInto('operator_accounts')
      .values({ operator_id: id, account_id: accountId, role })
      .onConflict((oc) => oc.columns(['operator_id', 'account_id']).doUpdateSet({ role }))
      .execute();
    return id;
  }),
);

/**
 * A failed sign-in counted, and the lock it begins set, in one transaction: a right password
 * checked after it (acceptPassword) sees the lock. Answers the lock's end (0: none begins).
 * Id 0 (no operator) changes nothing, at the same cost.
 */
export const countOperatorFailureProcedure = writerProcedure(
  'operators.countFailure',
  ({ db }, id: number, now: number, policy: LockoutPolicy): Promise<number> =>
    db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('operators')
        .set((eb) => ({
          failures: eb
            .case()
            .when('last_failure_at', '<', countResetBefore(now, policy))
            .then(1)
            .else(eb('failures', '+', 1))
            .end(),
          last_failure_at: now,
        }))
        .where('id', '=', id)
        .returning('failures')
        .executeTakeFirst();
      const until = row ? lockedUntilAfter(Number(row.failures), now, policy) : 0;
      if (until > 0) await trx.updateTable('operators').set({ locked_until: until }).where('id', '=', id).where('locked_until', '<', until).execute();
      return until;
    }),
);

/**
 * An invitation from the console, in one transaction: the operator made when new, given the
 * role; a new operator's set-up link kept and its mail queued (`toNew`), or, for an operator
 * that exists and gets this account now, its mail queued (`toExisting`). Answers the
 * operator, whether it was made now, and whether the account is new to it.
 */
export const inviteOperatorProcedure = writerProcedure(
  'operators.invite',
  ({ db }, invite: OperatorInvite): Promise<{ id: number; isNew: boolean; newToAccount: boolean }> =>
    db.transaction().execute(async (trx) => {
      const key = foldKey(invite.email);
      const made = await trx
        .insertInto('operators')
        .values({ email: invite.email, email_key: key, password_hash: null, created_at: invite.now })
        .onConflict((oc) => oc.column('email_key').doNothing())
        .returning('id')
        .executeTakeFirst();
      const id = made ? Number(made.id) : Number((await trx.selectFrom('operators').select('id').where('email_key', '=', key).executeTakeFirstOrThrow()).id);
      const had = await trx
        .selectFrom('operator_accounts')
        .select('role')
        .where('operator_id', '=', id)
        .where('account_id', '=', invite.accountId)
        .executeTakeFirst();
      await trx
        .insertInto('operator_accounts')
        .values({ operator_id: id, account_id: invite.accountId, role: invite.role })
        .onConflict((oc) => oc.columns(['operator_id', 'account_id']).doUpdateSet({ role: invite.role }))
        .execute();
      if (made) await trx.insertInto('operator_links').values({ digest: invite.link.digest, operator_id: id, expires_at: invite.link.expiresAt }).execute();
      const mail = made ? invite.toNew : had ? undefined : invite.toExisting;
      if (mail) await queueOperatorMail(trx, invite.accountId, id, mail.kind, mail.vars, invite.now).execute();
      return { id, isNew: made !== undefined, newToAccount: had === undefined };
    }),
);

/** The link taken (it works once): the operator's new password set; answers its id, or undefined for a link unknown or expired. */
export const setPasswordByLinkProcedure = writerProcedure(
  'operators.setPasswordByLink',
  ({ db }, digest: string, passwordHash: string, now: number): Promise<number | undefined> =>
    db.transaction().execute(async (trx) => {
      const row = await trx.deleteFrom('operator_links').where('digest', '=', digest).returning(['operator_id', 'expires_at']).executeTakeFirst();
      if (!row || Number(row.expires_at) <= now) return undefined;
      const id = Number(row.operator_id);
      for (const statement of replacePassword(trx, id, passwordHash)) await statement.execute();
      return id;
    }),
);

export class OperatorRepository extends Repository implements OperatorStore {
  grant(email: string, accountId: number, role: Role, now: number): Promise<number> {
    return this.connection.transact(grantOperatorProcedure, email, accountId, role, now);
  }

  invite(invite: OperatorInvite): Promise<{ id: number; isNew: boolean; newToAccount: boolean }> {
    return this.connection.transact(inviteOperatorProcedure, invite);
  }

  async byEmail(email: string): Promise<Operator | undefined> {
    const row = await this.reads.selectFrom('operators').select('id').where('email_key', '=', foldKey(email)).executeTakeFirst();
    return row ? this.byId(row.id) : undefined;
  }

  async setAdministrator(email: string, on: boolean, now: number): Promise<number | undefined> {
    const key = foldKey(email);
    const made = on
      ? [this.build.insertInto('operators').values({ email, email_key: key, password_hash: null, created_at: now }).onConflict((oc) => oc.column('email_key').doNothing())]
      : [];
    // One transaction: the operator made (when new) and marked.
    await this.connection.writeAll([...made, this.build.updateTable('operators').set({ administrator: on ? 1 : 0 }).where('email_key', '=', key)]);
    const row = await this.reads.selectFrom('operators').select('id').where('email_key', '=', key).executeTakeFirst();
    return row?.id;
  }

  async byId(id: number): Promise<Operator | undefined> {
    return (await this.operators(id))[0];
  }

  list(): Promise<Operator[]> {
    return this.operators();
  }

  private async operators(id?: number): Promise<Operator[]> {
    let query = this.reads.selectFrom('operators').select(['id', 'email', 'password_hash', 'totp_secret', 'created_at', 'administrator']).orderBy('id');
    if (id !== undefined) query = query.where('id', '=', id);
    const rows = await query.execute();
    if (rows.length === 0) return [];
    let grants = this.reads
      .selectFrom('operator_accounts as g')
      .innerJoin('accounts as a', 'a.id', 'g.account_id')
      .select(['g.operator_id', 'g.account_id', 'g.role', 'a.name'])
      .orderBy('a.name');
    if (id !== undefined) grants = grants.where('g.operator_id', '=', id);
    const byOperator = new Map<number, Array<{ accountId: number; account: string; role: Role }>>();
    for (const grant of await grants.execute()) {
      if (!isRole(grant.role)) continue;
      const list = byOperator.get(Number(grant.operator_id)) ?? [];
      list.push({ accountId: Number(grant.account_id), account: grant.name, role: grant.role });
      byOperator.set(Number(grant.operator_id), list);
    }
    return rows.map((row) => ({
      id: row.id,
      email: row.email,
      hasPassword: row.password_hash !== null,
      twoStep: row.totp_secret !== null,
      administrator: Number(row.administrator) === 1,
      createdAt: Number(row.created_at),
      accounts: byOperator.get(row.id) ?? [],
    }));
  }

  async remove(id: number, accountId?: number): Promise<void> {
    const { build } = this;
    const statements =
      accountId === undefined
        ? // Children first: SQLite enforces the foreign keys, and not every engine cascades alike.
          [
            ...(['operator_sessions', 'operator_links', 'operator_accounts', 'operator_recovery_codes', 'mail_outbox'] as const).map((table) =>
              build.deleteFrom(table).where('operator_id', '=', id),
            ),
            build.deleteFrom('operators').where('id', '=', id),
          ]
        : [
            build.deleteFrom('operator_accounts').where('operator_id', '=', id).where('account_id', '=', accountId),
            build.deleteFrom('operator_links').where('operator_id', '=', id),
          ];
    await this.connection.writeAll(statements);
  }

  async credentials(email: string): Promise<OperatorCredentials | undefined> {
    const row = await this.reads
      .selectFrom('operators')
      .select(['id', 'password_hash', 'failures', 'last_failure_at', 'locked_until'])
      .where('email_key', '=', foldKey(email))
      .executeTakeFirst();
    return (
      row && {
        id: row.id,
        passwordHash: row.password_hash,
        failures: Number(row.failures),
        lastFailureAt: Number(row.last_failure_at),
        lockedUntil: Number(row.locked_until),
      }
    );
  }

  countFailure(id: number, now: number, policy: LockoutPolicy): Promise<number> {
    return this.connection.transact(countOperatorFailureProcedure, id, now, policy);
  }

  async acceptPassword(id: number, now: number, clearFailures: boolean): Promise<boolean> {
    // The lock is looked at by the statement that takes the sign-in: a failure that locked the
    // operator after its password was read, but before this, is seen (a row lock on PostgreSQL,
    // the one writer on SQLite); a lock is never cleared by a sign-in that did not see it.
    const { rows } = await this.connection.write(
      this.build
        .updateTable('operators')
        .set(clearFailures ? { failures: 0, last_failure_at: 0, locked_until: 0 } : { failures: sql<number>`failures` })
        .where('id', '=', id)
        .where('locked_until', '<=', now)
        .returning('id'),
    );
    return rows.length === 1;
  }

  async replacePassword(id: number, passwordHash: string | null): Promise<void> {
    await this.connection.writeAll(replacePassword(this.build, id, passwordHash));
  }

  async addLink(digest: string, operatorId: number, expiresAt: number, mail?: OperatorLinkMail): Promise<void> {
    await this.connection.writeAll([
      this.build.deleteFrom('operator_links').where('operator_id', '=', operatorId),
      this.build.insertInto('operator_links').values({ digest, operator_id: operatorId, expires_at: expiresAt }),
      ...(mail ? [queueOperatorMail(this.build, mail.accountId, operatorId, mail.kind, mail.vars, mail.now)] : []),
    ]);
  }

  setPasswordByLink(digest: string, passwordHash: string, now: number): Promise<number | undefined> {
    return this.connection.transact(setPasswordByLinkProcedure, digest, passwordHash, now);
  }

  async linkOperator(digest: string, now: number): Promise<number | undefined> {
    const row = await this.reads.selectFrom('operator_links').select(['operator_id', 'expires_at']).where('digest', '=', digest).executeTakeFirst();
    return row && Number(row.expires_at) > now ? Number(row.operator_id) : undefined;
  }

  async addSession(digest: string, operatorId: number, now: number, pending = false): Promise<void> {
    await this.connection.write(
      this.build.insertInto('operator_sessions').values({ digest, operator_id: operatorId, created_at: now, seen_at: now, pending: pending ? 1 : 0 }),
    );
  }

  async completeSession(pendingDigest: string, digest: string, now: number): Promise<boolean> {
    // Taken once: of two codes posted together, or a code and a lock, one ends it.
    const { rows } = await this.connection.write(
      this.build.deleteFrom('operator_sessions').where('digest', '=', pendingDigest).where('pending', '=', 1).returning('operator_id'),
    );
    if (!rows[0]) return false;
    await this.connection.write(
      this.build.insertInto('operator_sessions').values({ digest, operator_id: Number(rows[0].operator_id), created_at: now, seen_at: now, pending: 0 }),
    );
    return true;
  }

  async endPendingSessions(operatorId: number): Promise<void> {
    await this.connection.write(this.build.deleteFrom('operator_sessions').where('operator_id', '=', operatorId).where('pending', '=', 1));
  }

  async endOtherSessions(operatorId: number, keepDigest: string): Promise<void> {
    await this.connection.write(this.build.deleteFrom('operator_sessions').where('operator_id', '=', operatorId).where('digest', '!=', keepDigest));
  }

  async session(digest: string): Promise<OperatorSession | undefined> {
    const row = await this.reads
      .selectFrom('operator_sessions')
      .select(['operator_id', 'created_at', 'seen_at', 'pending'])
      .where('digest', '=', digest)
      .executeTakeFirst();
    return row && { operatorId: Number(row.operator_id), createdAt: Number(row.created_at), seenAt: Number(row.seen_at), pending: Number(row.pending) === 1 };
  }

  async twoStep(id: number): Promise<OperatorTwoStep> {
    const row = await this.reads.selectFrom('operators').select(['totp_secret', 'totp_pending', 'totp_step']).where('id', '=', id).executeTakeFirst();
    return { secret: row?.totp_secret ?? null, pending: row?.totp_pending ?? null, step: Number(row?.totp_step ?? 0) };
  }

  async setTwoStepPending(id: number, secret: string | null): Promise<void> {
    await this.connection.write(this.build.updateTable('operators').set({ totp_pending: secret }).where('id', '=', id));
  }

  async enableTwoStep(id: number, secret: string, step: number, recoveryDigests: readonly string[]): Promise<void> {
    await this.connection.writeAll([
      this.build.updateTable('operators').set({ totp_secret: secret, totp_pending: null, totp_step: step }).where('id', '=', id),
      this.build.deleteFrom('operator_recovery_codes').where('operator_id', '=', id),
      this.build.insertInto('operator_recovery_codes').values(recoveryDigests.map((digest) => ({ operator_id: id, digest, used_at: null }))),
    ]);
  }

  async disableTwoStep(id: number): Promise<void> {
    await this.connection.writeAll([
      this.build.updateTable('operators').set({ totp_secret: null, totp_pending: null, totp_step: 0 }).where('id', '=', id),
      this.build.deleteFrom('operator_recovery_codes').where('operator_id', '=', id),
    ]);
  }

  async takeStep(id: number, step: number): Promise<boolean> {
    const result = await this.connection.write(this.build.updateTable('operators').set({ totp_step: step }).where('id', '=', id).where('totp_step', '<', step));
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async useRecoveryCode(id: number, digest: string, now: number): Promise<boolean> {
    const result = await this.connection.write(
      this.build
        .updateTable('operator_recovery_codes')
        .set({ used_at: now })
        .where('operator_id', '=', id)
        .where('digest', '=', digest)
        .where('used_at', 'is', null),
    );
    return Number(result.numAffectedRows ?? 0) > 0;
  }

  async recoveryCodesLeft(id: number): Promise<number> {
    const row = await this.reads
      .selectFrom('operator_recovery_codes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('operator_id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async touchSession(digest: string, now: number): Promise<void> {
    await this.connection.write(this.build.updateTable('operator_sessions').set({ seen_at: now }).where('digest', '=', digest));
  }

  async endSession(digest: string): Promise<void> {
    await this.connection.write(this.build.deleteFrom('operator_sessions').where('digest', '=', digest));
  }

  async endSessions(operatorId: number): Promise<void> {
    await this.connection.write(this.build.deleteFrom('operator_sessions').where('operator_id', '=', operatorId));
  }
}

/** The statements of a new password (or none): failures cleared, and every link and session of the operator ended. */
function replacePassword(db: Kysely<Database>, id: number, passwordHash: string | null) {
  return [
    db.updateTable('operators').set({ password_hash: passwordHash, failures: 0, last_failure_at: 0, locked_until: 0 }).where('id', '=', id),
    db.deleteFrom('operator_links').where('operator_id', '=', id),
    db.deleteFrom('operator_sessions').where('operator_id', '=', id),
  ];
}
