/** The mail outbox and the accounts' mail templates. */
import { sql, type Kysely } from 'kysely';
import type { MailKind, MailRequest, MailStore, OperatorMailKind, QueuedMail } from '../mail/mail.js';
import type { Database } from './schema.js';
import { Repository } from './writes.js';

/** The statement that queues a mail to members, for the transaction of the change that asks for it (none for no member). */
export function queueMail(db: Kysely<Database>, accountId: number, memberIds: readonly number[], mail: MailRequest, now: number) {
  if (memberIds.length === 0) return undefined;
  return db.insertInto('mail_outbox').values(
    memberIds.map((memberId) => ({
      account_id: accountId,
      member_id: memberId,
      kind: mail.kind,
      vars: JSON.stringify(mail.vars ?? {}),
      created_at: now,
      due_at: now,
    })),
  );
}

/** The statement that queues a mail to an operator, sent through the account's mail settings. */
export function queueOperatorMail(
  db: Kysely<Database>,
  accountId: number,
  operatorId: number,
  kind: OperatorMailKind,
  vars: Record<string, string>,
  now: number,
) {
  return db
    .insertInto('mail_outbox')
    .values({ account_id: accountId, member_id: null, operator_id: operatorId, kind, vars: JSON.stringify(vars), created_at: now, due_at: now });
}

export class MailRepository extends Repository implements MailStore {
  async setTemplate(accountId: number, kind: MailKind, text: string | undefined): Promise<void> {
    await this.connection.write(
      text === undefined
        ? this.build.deleteFrom('mail_templates').where('account_id', '=', accountId).where('kind', '=', kind)
        : this.build
            .insertInto('mail_templates')
            .values({ account_id: accountId, kind, text })
            .onConflict((oc) => oc.columns(['account_id', 'kind']).doUpdateSet({ text })),
    );
  }

  async template(accountId: number, kind: MailKind): Promise<string | undefined> {
    const row = await this.reads.selectFrom('mail_templates').select('text').where('account_id', '=', accountId).where('kind', '=', kind).executeTakeFirst();
    return row?.text;
  }

  async dueMails(now: number, limit: number): Promise<QueuedMail[]> {
    const rows = await this.reads
      .selectFrom('mail_outbox as o')
      .leftJoin('members as m', 'm.id', 'o.member_id')
      .leftJoin('operators as p', 'p.id', 'o.operator_id')
      .innerJoin('accounts as a', 'a.id', 'o.account_id')
      .leftJoin('mail_templates as t', (join) => join.onRef('t.account_id', '=', 'o.account_id').onRef('t.kind', '=', 'o.kind'))
      .select([
        'o.id',
        'o.kind',
        'o.attempts',
        'o.vars',
        'm.id as member_id',
        'm.login',
        'm.email',
        'm.exp_time_at',
        'm.exp_time_mode',
        'p.id as operator_id',
        'p.email as operator_email',
        'a.id as account_id',
        'a.name as account_name',
        'a.smtp_url',
        'a.mail_from',
        'a.time_zone',
        'a.page_language',
        't.text as template',
      ])
      .where('o.sent_at', 'is', null)
      .where('o.failed_at', 'is', null)
      .where('o.due_at', '<=', now)
      .where('o.lease_until', '<=', now)
      .orderBy('o.due_at')
      .orderBy('o.id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: Number(row.id),
      kind: row.kind as MailKind | OperatorMailKind,
      attempts: Number(row.attempts),
      vars: JSON.parse(row.vars) as Record<string, string>,
      member:
        row.member_id === null
          ? undefined
          : {
              id: Number(row.member_id),
              login: row.login!,
              email: row.email!,
              expiresAt: row.exp_time_at === null ? null : Number(row.exp_time_at),
              expiryAction: row.exp_time_mode,
            },
      operator: row.operator_id === null ? undefined : { id: Number(row.operator_id), email: row.operator_email! },
      account: { id: Number(row.account_id), name: row.account_name, smtpUrl: row.smtp_url, mailFrom: row.mail_from, timeZone: row.time_zone, pageLanguage: row.page_language },
      template: row.template ?? undefined,
    }));
  }

  async lease(id: number, now: number, until: number): Promise<boolean> {
    // A compare-and-set on the lease: of several servers, one takes it.
    const result = await this.connection.write(
      this.build.updateTable('mail_outbox').set({ lease_until: until }).where('id', '=', id).where('lease_until', '<=', now).where('sent_at', 'is', null),
    );
    return Number(result.numAffectedRows) === 1;
  }

  async markSent(id: number, at: number): Promise<void> {
    await this.connection.write(
      this.build
        .updateTable('mail_outbox')
        .set({ sent_at: at, vars: '{}', lease_until: 0, attempts: sql`attempts + 1`, last_error: null })
        .where('id', '=', id),
    );
  }

  async markFailed(id: number, at: number, error: string, nextAt: number | null): Promise<void> {
    await this.connection.write(
      this.build
        .updateTable('mail_outbox')
        .set(
          nextAt === null
            ? { failed_at: at, vars: '{}', lease_until: 0, attempts: sql`attempts + 1`, last_error: error }
            : { due_at: nextAt, lease_until: 0, attempts: sql`attempts + 1`, last_error: error },
        )
        .where('id', '=', id),
    );
  }

  async counts(accountId?: number): Promise<{ pending: number; sent: number; failed: number }> {
    let query = this.reads
      .selectFrom('mail_outbox')
      .select((eb) => [
        eb.fn.countAll<number>().filterWhere('sent_at', 'is', null).filterWhere('failed_at', 'is', null).as('pending'),
        eb.fn.count<number>('sent_at').as('sent'),
        eb.fn.count<number>('failed_at').as('failed'),
      ]);
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    // Over the whole outbox (a million welcome mails after an import): read apart.
    const [row] = await this.connection.readApart(query);
    return { pending: Number(row!.pending), sent: Number(row!.sent), failed: Number(row!.failed) };
  }
}
