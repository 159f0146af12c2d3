/**
 * A member's own deletion (the member pages' "Delete my account"), which erases it: in one
 * transaction, its password, e-mail address, profile fields, addresses, URLs and billing
 * references go, with its sessions, login records, reset links, pending mails and its place in
 * the registrations queue; the data of its events in the feed is emptied. What stays is what an
 * integrator's code counts on: the id, the login (held until the purge frees it), the status D
 * and the deletion time (`limitd`, `member.deleted`), the registration's date and type.
 * Counters and the search tables follow by their triggers, as with any change.
 */
import type { EventOrigin } from '../events/event.js';
import { erasedEvents } from '../events/member-events.js';
import { writerProcedure } from './dialects/dialect.js';
import { appendEvents } from './event-repository.js';

/** The password hash an erased member keeps: no password verifies against it (it is no hash). */
export const ERASED_PASSWORD = '!erased';
/** What each of an erased member's earlier events holds, instead of its data. */
export const ERASED_EVENT_DATA = '{"erased":true}';

/** Erases the member (see above); answers its login, or undefined when there is no such member. */
export const eraseMemberProcedure = writerProcedure(
  'members.erase',
  ({ db }, accountId: number, memberId: number, now: number, origin: EventOrigin | undefined): Promise<string | undefined> =>
    db.transaction().execute(async (trx) => {
      const member = await trx
        .selectFrom('members')
        .select(['login', 'status'])
        .where('account_id', '=', accountId)
        .where('id', '=', memberId)
        .executeTakeFirst();
      if (!member) return undefined;
      await trx
        .updateTable('members')
        .set({
          status: 'D',
          deleted_at: now,
          email: '',
          email_key: '',
          password_hash: ERASED_PASSWORD,
          reg_ip: null,
          last_login_ip: null,
          email_verified_at: null,
          url_ok: null,
          url_fail: null,
          bill_pc: null,
          bill_id: null,
          bill_item: null,
          bill_cust: null,
          bill_subscr: null,
          bill_qty: null,
          exp_time_at: null,
          exp_time_mode: null,
          exp_logins_left: null,
          exp_logins_mode: null,
          updated_at: now,
        })
        .where('account_id', '=', accountId)
        .where('id', '=', memberId)
        .execute();
      for (const table of [
        'member_fields',
        'sessions',
        'login_events',
        'login_failures',
        'reset_links',
        'mail_outbox',
        'pending_registrations',
        'bulk_updated_members',
      ] as const)
        await trx.deleteFrom(table).where('account_id', '=', accountId).where('member_id', '=', memberId).execute();
      for (const table of ['events', 'event_outbox'] as const)
        await trx.updateTable(table).set({ data: ERASED_EVENT_DATA }).where('account_id', '=', accountId).where('member_id', '=', memberId).execute();
      if (origin) await appendEvents(trx, accountId, erasedEvents({ id: memberId, login: member.login }, member.status, now, origin));
      return member.login;
    }),
);
