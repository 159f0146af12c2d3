/**
 * The upstream links in SQL: the link rows, the capture of a member's password, the members
 * still waiting, and the queue of writes mirrored to the upstream.
 */
import { sql, type Selectable } from 'kysely';
import { PASSWORD_AT_UPSTREAM } from '../auth/legacy-hashes.js';
import type { MirrorJob, UpstreamLink, UpstreamLinkSettings, UpstreamLinkStore } from '../upstream/upstream-link.js';
import type { UpstreamLinkTable } from './schema.js';
import { writerProcedure } from './dialects/dialect.js';
import { Repository } from './writes.js';

function toLink(row: Selectable<UpstreamLinkTable>): UpstreamLink {
  const instant = (value: number | null) => (value === null ? null : Number(value));
  return {
    accountId: Number(row.account_id),
    url: row.url,
    user: row.upstream_user,
    key: row.upstream_key,
    timeZone: row.time_zone,
    captureUnknown: row.capture_unknown === 1,
    mirrorWrites: row.mirror_writes === 1,
    linkedAt: Number(row.linked_at),
    syncStartedAt: instant(row.sync_started_at),
    syncCursor: instant(row.sync_cursor),
    lastSyncAt: instant(row.last_sync_at),
    migrated: Number(row.migrated),
    captured: Number(row.captured),
    upstreamErrors: Number(row.upstream_errors),
    lastError: row.last_error,
    lastErrorAt: instant(row.last_error_at),
  };
}

/** The password an upstream login confirmed, kept where the member still waits for one; answers whether it was. */
export const capturePasswordProcedure = writerProcedure(
  'upstream.capturePassword',
  ({ db }, accountId: number, memberId: number, hash: string): Promise<boolean> =>
    db.transaction().execute(async (trx) => {
      const changed = await trx
        .updateTable('members')
        .set({ password_hash: hash })
        .where('account_id', '=', accountId)
        .where('id', '=', memberId)
        .where('password_hash', '=', PASSWORD_AT_UPSTREAM)
        .executeTakeFirst();
      if (Number(changed.numUpdatedRows) === 0) return false;
      await trx
        .updateTable('upstream_links')
        .set((eb) => ({ captured: eb('captured', '+', 1) }))
        .where('account_id', '=', accountId)
        .execute();
      return true;
    }),
);

export class UpstreamRepository extends Repository implements UpstreamLinkStore {
  async saveLink(accountId: number, settings: UpstreamLinkSettings, at: number): Promise<void> {
    const values = {
      url: settings.url,
      upstream_user: settings.user,
      upstream_key: settings.key,
      time_zone: settings.timeZone,
      capture_unknown: settings.captureUnknown ? 1 : 0,
      mirror_writes: settings.mirrorWrites ? 1 : 0,
    };
    await this.connection.write(
      this.build
        .insertInto('upstream_links')
        .values({ account_id: accountId, linked_at: at, ...values })
        .onConflict((oc) => oc.column('account_id').doUpdateSet(values)),
    );
  }

  async removeLink(accountId: number): Promise<boolean> {
    const [, removed] = await this.connection.writeAll(
      [
        this.build.deleteFrom('upstream_mirror').where('account_id', '=', accountId),
        this.build.deleteFrom('upstream_links').where('account_id', '=', accountId),
      ],
      { long: true },
    );
    return Number(removed!.numAffectedRows) > 0;
  }

  async findLink(accountId: number): Promise<UpstreamLink | undefined> {
    const row = await this.reads.selectFrom('upstream_links').selectAll().where('account_id', '=', accountId).executeTakeFirst();
    return row && toLink(row);
  }

  async listLinks(): Promise<UpstreamLink[]> {
    return (await this.reads.selectFrom('upstream_links').selectAll().orderBy('account_id').execute()).map(toLink);
  }

  async recordSyncProgress(accountId: number, startedAt: number, cursor: number, written: number): Promise<void> {
    await this.connection.write(
      this.build
        .updateTable('upstream_links')
        .set((eb) => ({ sync_started_at: startedAt, sync_cursor: cursor, migrated: eb('migrated', '+', written) }))
        .where('account_id', '=', accountId),
    );
  }

  async finishSync(accountId: number, startedAt: number): Promise<void> {
    await this.connection.write(
      this.build.updateTable('upstream_links').set({ sync_started_at: null, sync_cursor: null, last_sync_at: startedAt }).where('account_id', '=', accountId),
    );
  }

  async recordUpstreamError(accountId: number, message: string, at: number): Promise<void> {
    await this.connection.write(
      this.build
        .updateTable('upstream_links')
        .set((eb) => ({ upstream_errors: eb('upstream_errors', '+', 1), last_error: message.slice(0, 500), last_error_at: at }))
        .where('account_id', '=', accountId),
    );
  }

  capturePassword(accountId: number, memberId: number, hash: string): Promise<boolean> {
    return this.connection.transact(capturePasswordProcedure, accountId, memberId, hash);
  }

  async countWaiting(accountId: number): Promise<number> {
    // Up to every member of the account: read apart.
    const [row] = await this.connection.readApart(
      this.build
        .selectFrom('members')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .where('password_hash', '=', PASSWORD_AT_UPSTREAM)
        .where('status', '!=', 'D'),
    );
    return Number(row!.n);
  }

  async enqueueMirror(accountId: number, endpoint: MirrorJob['endpoint'], params: MirrorJob['params'], at: number): Promise<void> {
    await this.connection.write(
      this.build.insertInto('upstream_mirror').values({ account_id: accountId, endpoint, params: JSON.stringify(params), created_at: at, next_at: at }),
    );
  }

  async claimMirror(now: number, leaseMs: number): Promise<MirrorJob | undefined> {
    // The head of each account's queue, when it is due and nobody holds it. The condition is
    // checked again by the update itself: of two servers that picked the same row, the second
    // finds it held and takes nothing.
    const head = sql<number>`(select m.id from upstream_mirror m
        where m.next_at <= ${now} and m.lease_until <= ${now}
          and not exists (select 1 from upstream_mirror e where e.account_id = m.account_id and e.id < m.id)
        order by m.id limit 1)`;
    const {
      rows: [row],
    } = await this.connection.write(
      this.build
        .updateTable('upstream_mirror')
        .set((eb) => ({ lease_until: now + leaseMs, attempts: eb('attempts', '+', 1) }))
        .where('id', '=', head)
        .where('lease_until', '<=', now)
        .returning(['id', 'account_id', 'endpoint', 'params', 'attempts']),
    );
    if (!row) return undefined;
    return {
      id: Number(row.id),
      accountId: Number(row.account_id),
      endpoint: row.endpoint as MirrorJob['endpoint'],
      params: JSON.parse(row.params) as MirrorJob['params'],
      attempts: Number(row.attempts),
    };
  }

  async finishMirror(id: number): Promise<void> {
    await this.connection.write(this.build.deleteFrom('upstream_mirror').where('id', '=', id));
  }

  async retryMirror(id: number, error: string, nextAt: number): Promise<void> {
    await this.connection.write(
      this.build
        .updateTable('upstream_mirror')
        .set({ last_error: error.slice(0, 500), next_at: nextAt, lease_until: 0 })
        .where('id', '=', id),
    );
  }

  async mirrorBacklog(accountId: number): Promise<{ pending: number; lastError: string | null }> {
    // Over the whole backlog of writes waiting for the upstream: read apart.
    const [count] = await this.connection.readApart(
      this.build
        .selectFrom('upstream_mirror')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId),
    );
    const failed = await this.reads
      .selectFrom('upstream_mirror')
      .select('last_error')
      .where('account_id', '=', accountId)
      .where('last_error', 'is not', null)
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return { pending: Number(count!.n), lastError: failed?.last_error ?? null };
  }
}
