/**
 * The webhook dispatcher: turns each enabled endpoint's new events into delivery rows (in id
 * order, from the endpoint's cursor, as the change feed reads), and sends the due ones. Run
 * by every server every half second (the webhooks job, server.ts); several servers share the work through the store: an
 * endpoint's deliveries are leased by one server at a time, and its cursor moves by
 * compare-and-set. Each endpoint gets its events in id order: a failing delivery holds the
 * later ones back for its first HOLD_ATTEMPTS attempts, then they go on without it (it keeps
 * its own retries, and `webhook deliveries` shows it).
 */
import type { Clock } from '../common/clock.js';
import { eventObject, type StoredEvent } from '../events/event.js';
import type { EventStore } from '../events/events-store.js';
import { FEED_WINDOW } from '../events/events-service.js';
import type { WebhookSender } from './sender.js';
import type { AttemptResult, WebhookEndpoint, WebhookStore } from './webhook.js';

/**
 * Seconds to wait after each failed attempt: 12 attempts over about 2.8 days (5 s, 5 min,
 * 30 min, 2 h, 5 h, then every 10 h), each delay ±20% (jitter, so that a receiver coming back
 * is not hit by every retry at once). After the last, the delivery has failed and the
 * endpoint is disabled (`webhook enable` turns it back on).
 */
export const RETRY_DELAYS_S: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 36000, 36000, 36000, 36000, 36000];
/** A failing delivery holds its endpoint's later ones back for this many attempts (~35 min). */
export const HOLD_ATTEMPTS = 4;
/** Deliveries taken per round trip to the store. */
const BATCH = 100;
/** Events turned into deliveries per statement. */
const FAN_OUT_PAGE = 1000;
/**
 * How long a server holds an endpoint's deliveries without renewing: it renews the lease
 * before an attempt when less than LEASE_RENEW_MS is left (more than a send's 10 s timeout),
 * so the lease never runs out under a live server, and a killed one's is free within 30 s.
 */
export const LEASE_MS = 30_000;
const LEASE_RENEW_MS = 15_000;
const ROUND_BUDGET_MS = 30_000;
/** Endpoints served at once by one server. */
const CONCURRENT_ENDPOINTS = 8;

export interface DispatchReport {
  readonly delivered: number;
  readonly failed: number;
}

export class WebhookDispatcher {
  private running: Promise<DispatchReport> | undefined;

  constructor(
    private readonly store: WebhookStore,
    private readonly events: EventStore,
    private readonly sender: WebhookSender,
    /** Every account's name by id (read once per round that has endpoints to serve). */
    private readonly accountNames: () => Promise<ReadonlyMap<number, string>>,
    private readonly clock: Clock,
    private readonly random: () => number = Math.random,
  ) {}

  /** One round over every enabled endpoint; a round asked for while one runs shares it. */
  run(): Promise<DispatchReport> {
    this.running ??= this.round().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Resolves once no round is running. */
  async idle(): Promise<void> {
    await this.running?.catch(() => {});
  }

  private async round(): Promise<DispatchReport> {
    await this.events.sequence();
    const endpoints = await this.store.enabledEndpoints();
    const report = { delivered: 0, failed: 0 };
    if (endpoints.length === 0) return report;
    const names = await this.accountNames();
    let next = 0;
    const worker = async () => {
      while (next < endpoints.length) {
        const endpoint = endpoints[next++]!;
        await this.fanOut(endpoint);
        const done = await this.deliver(endpoint, names.get(endpoint.accountId));
        report.delivered += done.delivered;
        report.failed += done.failed;
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_ENDPOINTS, endpoints.length) }, worker));
    return report;
  }

  /** The endpoint's new events, as pending deliveries. */
  private async fanOut(endpoint: WebhookEndpoint): Promise<void> {
    let cursor = endpoint.cursor;
    for (;;) {
      const page = await this.events.page(endpoint.accountId, cursor, FAN_OUT_PAGE, endpoint.types, FEED_WINDOW);
      if (page.next === cursor) return;
      const ids = page.events.map((event) => event.id);
      if (!(await this.store.fanOut(endpoint.id, endpoint.accountId, cursor, page.next, ids, this.clock()))) return;
      cursor = page.next;
    }
  }

  private async deliver(endpoint: WebhookEndpoint, account: string | undefined): Promise<DispatchReport> {
    const started = this.clock();
    const report = { delivered: 0, failed: 0 };
    let lease = started + LEASE_MS;
    if (!(await this.store.lease(endpoint.id, started, lease))) return report;
    /** Keeps the lease for one more attempt; false if another server took it (this one stalled). */
    const keepLease = async (now: number): Promise<boolean> => {
      if (lease - now > LEASE_RENEW_MS) return true;
      if (!(await this.store.renewLease(endpoint.id, lease, now + LEASE_MS))) return false;
      lease = now + LEASE_MS;
      return true;
    };
    try {
      if (account === undefined) return report;
      for (;;) {
        const pending = await this.store.pending(endpoint.id, BATCH);
        const events = new Map(
          (
            await this.events.byIds(
              endpoint.accountId,
              pending.map((d) => d.eventId),
            )
          ).map((event) => [event.id, event]),
        );
        const results: AttemptResult[] = [];
        let held = false;
        for (const delivery of pending) {
          const now = this.clock();
          if (delivery.nextAt > now) {
            // Not due: an early failure holds the later ones back; a late one lets them pass.
            if (delivery.attempts < HOLD_ATTEMPTS) {
              held = true;
              break;
            }
            continue;
          }
          if (!(await keepLease(now))) {
            held = true;
            break;
          }
          const event = events.get(delivery.eventId);
          const attempt = event
            ? await this.sender.send(
                endpoint.url,
                endpoint.secret,
                messageId(endpoint.accountId, event),
                JSON.stringify(eventObject(event, account)),
                new Date(now),
              )
            : { at: now, statusCode: null, durationMs: 0, error: 'the event is no longer kept (EVENT_RETENTION_DAYS)' };
          const attempts = delivery.attempts + 1;
          if (attempt.error === null) {
            results.push({ deliveryId: delivery.id, attempt, state: 'delivered', nextAt: now });
            report.delivered++;
            continue;
          }
          const gaveUp = !event || attempts > RETRY_DELAYS_S.length;
          const delay = gaveUp ? 0 : RETRY_DELAYS_S[attempts - 1]! * 1000 * (0.8 + 0.4 * this.random());
          results.push({ deliveryId: delivery.id, attempt, state: gaveUp ? 'failed' : 'pending', nextAt: now + Math.round(delay) });
          if (gaveUp) {
            report.failed++;
            if (event)
              await this.store.setDisabled(
                endpoint.id,
                now,
                `event ${delivery.eventId} failed ${attempts} times over ${Math.round((now - delivery.createdAt) / 3_600_000)} h; last: ${attempt.error}`,
              );
          }
          if (!gaveUp && attempts < HOLD_ATTEMPTS) {
            held = true;
            break;
          }
        }
        await this.store.recordAttempts(results);
        if (held || results.length === 0 || pending.length < BATCH || this.clock() - started > ROUND_BUDGET_MS) return report;
        if ((await this.store.endpoint(endpoint.id))?.disabledAt !== null) return report;
      }
    } finally {
      await this.store.release(endpoint.id, lease);
    }
  }
}

/** The Standard Webhooks message id: one per event, the same on every retry (receivers deduplicate by it). */
export function messageId(accountId: number, event: StoredEvent): string {
  return `evt_${accountId}_${event.id}`;
}
