/** Password reset links (digests), and the mail that carries one, queued with it. */
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { MailRequest } from '../mail/mail.js';
import type { ResetLink, ResetLinkStore } from '../members/password-resets.js';
import { queueMail } from './mail-repository.js';
import type { Database } from './schema.js';
import { Repository } from './writes.js';

export class ResetRepository extends Repository implements ResetLinkStore {
  async createResetLink(
    link: { accountId: number; memberId: number; digest: string; createdAt: number; expiresAt: number },
    mail?: MailRequest,
  ): Promise<void> {
    const inserted = this.build
      .insertInto('reset_links')
      .values({ digest: link.digest, account_id: link.accountId, member_id: link.memberId, created_at: link.createdAt, expires_at: link.expiresAt });
    const mailed = mail && queueMail(this.build, link.accountId, [link.memberId], mail, link.createdAt)!;
    await this.connection.writeAll(mailed ? [inserted, mailed] : [inserted]);
  }

  async findResetLink(digest: string): Promise<ResetLink | undefined> {
    const row = await this.reads
      .selectFrom('reset_links')
      .select(['account_id', 'member_id', 'expires_at', 'used_at'])
      .where('digest', '=', digest)
      .executeTakeFirst();
    return (
      row && {
        accountId: Number(row.account_id),
        memberId: Number(row.member_id),
        expiresAt: Number(row.expires_at),
        usedAt: row.used_at === null ? null : Number(row.used_at),
      }
    );
  }

  async useResetLink(digest: string, at: number): Promise<boolean> {
    const result = await this.connection.write(
      this.build.updateTable('reset_links').set({ used_at: at }).where('digest', '=', digest).where('used_at', 'is', null).where('expires_at', '>', at),
    );
    return Number(result.numAffectedRows) === 1;
  }
}

/**
 * Ends the reset links of the members `memberIds` finds (a subquery or a list), inside the
 * transaction of the change that ends them (a new password or e-mail address, sessions
 * revoked, a suspension or deletion): each is marked expired for good (expiry 0, whatever any
 * server's clock says), so that its page says it no longer holds and its form changes
 * nothing. Of one account, or, for the expiry sweep, of any.
 */
export async function endResetLinksOf(
  trx: Kysely<Database>,
  accountId: number | undefined,
  memberIds: readonly number[] | SelectQueryBuilder<Database, 'members', { id: number }>,
): Promise<void> {
  if (Array.isArray(memberIds) && memberIds.length === 0) return;
  let links = trx.updateTable('reset_links').set({ expires_at: ENDED }).where('member_id', 'in', memberIds).where('expires_at', '>', ENDED);
  if (accountId !== undefined) links = links.where('account_id', '=', accountId);
  await links.execute();
}

/** The expiry of a link a change ended: before any instant. */
export const RESET_LINK_ENDED = 0;
const ENDED = RESET_LINK_ENDED;
