/** Webhook endpoints, deliveries and attempts in SQL. */
import { sql, type Selectable } from 'kysely';
import type { AttemptResult, DeliveryState, WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookStore } from '../webhooks/webhook.js';
import type { WebhookDeliveryTable, WebhookEndpointTable } from './schema.js';
import { writerProcedure } from './dialects/dialect.js';
import { Repository } from './writes.js';

const ROWS_PER_INSERT = 500;

function toEndpoint(row: Selectable<WebhookEndpointTable>): WebhookEndpoint {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    name: row.name,
    url: row.url,
    secret: row.secret,
    types: row.types === null ? undefined : row.types.split(','),
    createdAt: Number(row.created_at),
    cursor: Number(row.cursor),
    disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
    disabledReason: row.disabled_reason,
  };
}

function toDelivery(row: Selectable<WebhookDeliveryTable>): WebhookDelivery {
  return {
    id: Number(row.id),
    endpointId: Number(row.endpoint_id),
    accountId: Number(row.account_id),
    eventId: Number(row.event_id),
    state: row.state as DeliveryState,
    attempts: Number(row.attempts),
    nextAt: Number(row.next_at),
    createdAt: Number(row.created_at),
    deliveredAt: row.delivered_at === null ? null : Number(row.delivered_at),
    lastError: row.last_error,
  };
}

/**
 * The endpoint's cursor moved from `from` to `to` and a delivery made of each event between;
 * nothing if another server moved it first (answers false).
 */
export const fanOutProcedure = writerProcedure(
  'webhooks.fanOut',
  ({ db }, endpointId: number, accountId: number, from: number, to: number, eventIds: readonly number[], now: number): Promise<boolean> =>
    db.transaction().execute(async (trx) => {
      const moved = await trx.updateTable('webhook_endpoints').set({ cursor: to }).where('id', '=', endpointId).where('cursor', '=', from).executeTakeFirst();
      if (moved.numUpdatedRows === 0n) return false;
      const rows = eventIds.map((eventId) => ({
        endpoint_id: endpointId,
        account_id: accountId,
        event_id: eventId,
        state: 'pending',
        next_at: now,
        created_at: now,
        delivered_at: null,
        last_error: null,
      }));
      for (let start = 0; start < rows.length; start += ROWS_PER_INSERT)
        await trx
          .insertInto('webhook_deliveries')
          .values(rows.slice(start, start + ROWS_PER_INSERT))
          .execute();
      return true;
    }),
);

export class WebhookRepository extends Repository implements WebhookStore {
  async insertEndpoint(endpoint: {
    accountId: number;
    name: string | null;
    url: string;
    secret: string;
    types: readonly string[] | undefined;
    createdAt: number;
  }): Promise<WebhookEndpoint> {
    const { rows } = await this.connection.write(
      this.build
        .insertInto('webhook_endpoints')
        .values((eb) => ({
          account_id: endpoint.accountId,
          name: endpoint.name,
          url: endpoint.url,
          secret: endpoint.secret,
          types: endpoint.types === undefined ? null : endpoint.types.join(','),
          created_at: endpoint.createdAt,
          // From the events written from now on: the last id committed is where it starts.
          cursor: eb.fn.coalesce(eb.selectFrom('event_counters').select('last_id').where('account_id', '=', endpoint.accountId), eb.lit(0)),
          disabled_at: null,
          disabled_reason: null,
        }))
        .returningAll(),
    );
    return toEndpoint(rows[0]!);
  }

  async endpoints(accountId: number): Promise<WebhookEndpoint[]> {
    return (await this.reads.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).orderBy('id').execute()).map(toEndpoint);
  }

  async endpoint(id: number): Promise<WebhookEndpoint | undefined> {
    const row = await this.reads.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toEndpoint(row);
  }

  async endpointNamed(accountId: number, name: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.reads.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
    return row && toEndpoint(row);
  }

  async enabledEndpoints(): Promise<WebhookEndpoint[]> {
    return (await this.reads.selectFrom('webhook_endpoints').selectAll().where('disabled_at', 'is', null).orderBy('id').execute()).map(toEndpoint);
  }

  async removeEndpoint(id: number): Promise<boolean> {
    // Its deliveries and their attempts go with it (foreign keys): a cost that grows with them.
    const result = await this.connection.write(this.build.deleteFrom('webhook_endpoints').where('id', '=', id), { long: true });
    return result.numAffectedRows! > 0n;
  }

  async setDisabled(id: number, at: number | null, reason: string | null): Promise<void> {
    await this.connection.write(this.build.updateTable('webhook_endpoints').set({ disabled_at: at, disabled_reason: reason }).where('id', '=', id));
  }

  fanOut(endpointId: number, accountId: number, from: number, to: number, eventIds: readonly number[], now: number): Promise<boolean> {
    return this.connection.transact(fanOutProcedure, endpointId, accountId, from, to, eventIds, now);
  }

  async lease(endpointId: number, now: number, until: number): Promise<boolean> {
    // A compare-and-set on the lease: of several servers, one takes it (as SKIP LOCKED would).
    const result = await this.connection.write(
      this.build.updateTable('webhook_endpoints').set({ lease_until: until }).where('id', '=', endpointId).where('lease_until', '<=', now),
    );
    return result.numAffectedRows! > 0n;
  }

  async renewLease(endpointId: number, held: number, until: number): Promise<boolean> {
    const result = await this.connection.write(
      this.build.updateTable('webhook_endpoints').set({ lease_until: until }).where('id', '=', endpointId).where('lease_until', '=', held),
    );
    return result.numAffectedRows! > 0n;
  }

  async release(endpointId: number, held: number): Promise<void> {
    await this.connection.write(
      this.build.updateTable('webhook_endpoints').set({ lease_until: 0 }).where('id', '=', endpointId).where('lease_until', '=', held),
    );
  }

  async pending(endpointId: number, limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.reads
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .where('state', '=', 'pending')
      .orderBy('event_id')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toDelivery);
  }

  async recordAttempts(results: readonly AttemptResult[]): Promise<void> {
    if (results.length === 0) return;
    const attempts = results.map(({ deliveryId, attempt }) => ({
      delivery_id: deliveryId,
      at: attempt.at,
      status_code: attempt.statusCode,
      duration_ms: attempt.durationMs,
      error: attempt.error,
    }));
    const inserts = [];
    for (let start = 0; start < attempts.length; start += ROWS_PER_INSERT)
      inserts.push(this.build.insertInto('webhook_attempts').values(attempts.slice(start, start + ROWS_PER_INSERT)));
    const updates = results.map(({ deliveryId, attempt, state, nextAt }) =>
      this.build
        .updateTable('webhook_deliveries')
        .set({
          state,
          attempts: sql`attempts + 1`,
          next_at: nextAt,
          delivered_at: state === 'delivered' ? attempt.at : null,
          last_error: attempt.error ?? (state === 'delivered' ? null : `HTTP ${attempt.statusCode}`),
        })
        .where('id', '=', deliveryId),
    );
    await this.connection.writeAll([...inserts, ...updates]);
  }

  async deliveries(endpointId: number, limit: number): Promise<Array<WebhookDelivery & { attemptsMade: WebhookAttempt[] }>> {
    const rows = (
      await this.reads.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('id', 'desc').limit(limit).execute()
    ).map(toDelivery);
    if (rows.length === 0) return [];
    const attempts = await this.reads
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'delivery_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      ...row,
      attemptsMade: attempts
        .filter((attempt) => Number(attempt.delivery_id) === row.id)
        .map((attempt) => ({ at: Number(attempt.at), statusCode: attempt.status_code, durationMs: attempt.duration_ms, error: attempt.error })),
    }));
  }

  async delivery(id: number): Promise<WebhookDelivery | undefined> {
    const row = await this.reads.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toDelivery(row);
  }

  async redeliver(id: number, now: number): Promise<void> {
    await this.connection.write(this.build.updateTable('webhook_deliveries').set({ state: 'pending', next_at: now }).where('id', '=', id));
  }
}
