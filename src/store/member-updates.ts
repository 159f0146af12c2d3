/**
 * /update/ in SQL: every change is one set-based statement over the members the selector
 * finds, whether that is one member or a million, all in one transaction.
 */
import { sql, type ExpressionBuilder, type Kysely, type Transaction } from 'kysely';
import { MAX_PROFILE_FIELDS } from '../members/fields.js';
import { foldKey } from '../members/member.js';
import type { MemberChanges, MemberSelector, MemberUpdate } from '../members/member-store.js';
import type { EngineConnection } from './dialects/dialect.js';
import type { Database } from './schema.js';

/** The folded copy of a profile value, or null when folding leaves it as it is. */
export function valueKeyOf(value: string): string | null {
  const folded = foldKey(value);
  return folded === value ? null : folded;
}

/** The members a selector finds, as a condition on the members table. */
export function selectorCondition(accountId: number, selector: MemberSelector) {
  return (eb: ExpressionBuilder<Database, 'members'>) => {
    const inAccount = eb('account_id', '=', accountId);
    switch (selector.by) {
      case 'login':
        return eb.and([inAccount, eb('login_key', '=', foldKey(selector.login))]);
      case 'email':
        return eb.and([inAccount, eb('email_key', '=', foldKey(selector.email))]);
      case 'ptrans':
        return eb.and([
          inAccount,
          eb('reg_type', '=', 'P'),
          eb.or([eb('bill_id', '=', selector.value), eb('bill_subscr', '=', selector.value)]),
        ]);
      case 'id':
        return eb.and([inAccount, eb('id', '=', selector.id)]);
      case 'all':
        return eb.and([inAccount, eb('status', '!=', 'D')]);
    }
  };
}

/**
 * Writes down the time expirations due at `now`: the member becomes S or D, a deletion dated
 * at the instant it expired. For one account, or for all when `accountId` is undefined.
 */
export async function expireDue(db: Kysely<Database>, now: number, accountId?: number): Promise<number> {
  let query = db
    .updateTable('members')
    .set({
      status: sql`exp_time_mode`,
      deleted_at: sql`case when exp_time_mode = 'D' then exp_time_at else deleted_at end`,
      updated_at: now,
    })
    .where('status', '=', 'A')
    .where('exp_time_at', '<=', now);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

class Refused extends Error {
  constructor(readonly outcome: MemberUpdate) {
    super(outcome.kind);
  }
}

export async function updateMembers(
  connection: EngineConnection,
  accountId: number,
  selector: MemberSelector,
  changes: MemberChanges,
  now: number,
): Promise<MemberUpdate> {
  try {
    return await connection.db.transaction().execute(async (trx) => {
      await expireDue(trx, now, accountId);
      const matches = selectorCondition(accountId, selector);
      const { count } = await trx
        .selectFrom('members')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where(matches)
        .executeTakeFirstOrThrow();
      const matched = Number(count);
      if (matched === 0) return { kind: 'not-found' };
      if (changes.login !== undefined && matched > 1) return { kind: 'login-not-unique' };

      // Profile changes first: the selector may look at columns the member update changes.
      await changeProfiles(trx, accountId, matches, changes);
      if (changes.status === 'A') {
        // Re-activating a member also lifts a lockout.
        await trx
          .deleteFrom('login_throttle')
          .where('account_id', '=', accountId)
          .where('member_id', 'in', trx.selectFrom('members').select('id').where(matches))
          .execute();
      }
      const set = memberColumnChanges(changes, now);
      if (Object.keys(set).length > 0) {
        await trx
          .updateTable('members')
          .set({ ...set, updated_at: now })
          .where(matches)
          .execute();
      }
      return { kind: 'updated', count: matched };
    });
  } catch (error) {
    if (error instanceof Refused) return error.outcome;
    if (connection.classifyError(error) === 'unique-violation') return { kind: 'login-taken' };
    throw error;
  }
}

async function changeProfiles(
  trx: Transaction<Database>,
  accountId: number,
  matches: ReturnType<typeof selectorCondition>,
  changes: MemberChanges,
): Promise<void> {
  const matchedIds = () => trx.selectFrom('members').select('id').where(matches);
  if (changes.deleteFields.length > 0) {
    await trx
      .deleteFrom('member_fields')
      .where('account_id', '=', accountId)
      .where('name', 'in', [...changes.deleteFields])
      .where('member_id', 'in', matchedIds())
      .execute();
  }
  for (const [name, value] of changes.setFields) {
    const valueKey = valueKeyOf(value);
    await trx
      .insertInto('member_fields')
      .columns(['member_id', 'account_id', 'name', 'value', 'value_key'])
      .expression(
        trx
          .selectFrom('members')
          .select([
            'id',
            'account_id',
            sql<string>`cast(${name} as text)`.as('name'),
            sql<string>`cast(${value} as text)`.as('value'),
            sql<string | null>`cast(${valueKey} as text)`.as('value_key'),
          ])
          .where(matches),
      )
      .onConflict((oc) =>
        oc.columns(['member_id', 'name']).doUpdateSet((eb) => ({ value: eb.ref('excluded.value'), value_key: eb.ref('excluded.value_key') })),
      )
      .execute();
  }
  if (changes.setFields.size > 0) {
    const over = await trx
      .selectFrom('member_fields')
      .select('member_id')
      .where('account_id', '=', accountId)
      .where('member_id', 'in', matchedIds())
      .groupBy('member_id')
      .having((eb) => eb.fn.countAll(), '>', MAX_PROFILE_FIELDS)
      .limit(1)
      .executeTakeFirst();
    if (over) throw new Refused({ kind: 'too-many-fields' });
  }
}

/** The member columns an update sets; values on the right-hand side read the row before it. */
function memberColumnChanges(changes: MemberChanges, now: number): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  if (changes.login !== undefined) Object.assign(set, { login: changes.login, login_key: foldKey(changes.login) });
  if (changes.email !== undefined) Object.assign(set, { email: changes.email, email_key: foldKey(changes.email) });
  if (changes.passwordHash !== undefined) set.password_hash = changes.passwordHash;
  if (changes.urlOk !== undefined) set.url_ok = changes.urlOk;
  if (changes.urlFail !== undefined) set.url_fail = changes.urlFail;
  switch (changes.status) {
    case 'D':
      // A member already deleted keeps its first deletion time.
      Object.assign(set, { status: 'D', deleted_at: sql`case when status = 'D' then deleted_at else cast(${now} as bigint) end` });
      break;
    case 'S':
      Object.assign(set, { status: 'S', deleted_at: null });
      break;
    case 'A':
      Object.assign(set, { status: 'A', deleted_at: null });
      // Re-activation clears an expiration that already fell due and an allowance used up;
      // otherwise the member would be expired again at once.
      if (changes.timeExpiry === undefined) {
        set.exp_time_mode = sql`case when exp_time_at <= ${now} then null else exp_time_mode end`;
        set.exp_time_at = sql`case when exp_time_at <= ${now} then null else exp_time_at end`;
      }
      if (changes.loginExpiry === undefined) {
        set.exp_logins_mode = sql`case when exp_logins_left <= 0 then null else exp_logins_mode end`;
        set.exp_logins_left = sql`case when exp_logins_left <= 0 then null else exp_logins_left end`;
      }
      break;
  }
  if (changes.timeExpiry !== undefined) {
    Object.assign(set, { exp_time_mode: changes.timeExpiry?.action ?? null, exp_time_at: changes.timeExpiry?.at ?? null });
  }
  if (changes.loginExpiry !== undefined) {
    Object.assign(set, { exp_logins_mode: changes.loginExpiry?.action ?? null, exp_logins_left: changes.loginExpiry?.left ?? null });
  }
  return set;
}
