/** The operator's side of webhooks: endpoints added, listed, removed, re-enabled, tested; deliveries listed and sent again. */
import { randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import type { Clock } from '../common/clock.js';
import { EVENT_TYPES } from '../events/event.js';
import { checkReceiver } from './address-guard.js';
import type { WebhookSender } from './sender.js';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookStore } from './webhook.js';

export type AddOutcome = { kind: 'added'; endpoint: WebhookEndpoint } | { kind: 'refused'; parameter: 'url' | 'events'; reason: string };

export class WebhooksService {
  constructor(
    private readonly store: WebhookStore,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    private readonly allowPrivate: boolean,
  ) {}

  async add(account: Account, url: string, types: readonly string[] | undefined): Promise<AddOutcome> {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return { kind: 'refused', parameter: 'url', reason: 'not an absolute URL' };
    }
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { kind: 'refused', parameter: 'url', reason: 'http or https only' };
    if (parsed.username || parsed.password) return { kind: 'refused', parameter: 'url', reason: 'no credentials in the URL (the signature authenticates us)' };
    const unknown = types?.find((type) => !(EVENT_TYPES as readonly string[]).includes(type));
    if (unknown !== undefined) return { kind: 'refused', parameter: 'events', reason: `${unknown} is not an event type (${EVENT_TYPES.join(', ')})` };
    const refused = await checkReceiver(parsed, this.allowPrivate);
    if (refused) return { kind: 'refused', parameter: 'url', reason: refused };
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const endpoint = await this.store.insertEndpoint({ accountId: account.id, url: parsed.toString(), secret, types: types && types.length > 0 ? types : undefined, createdAt: this.clock() });
    return { kind: 'added', endpoint };
  }

  list(account: Account): Promise<WebhookEndpoint[]> {
    return this.store.endpoints(account.id);
  }

  /** The account's endpoint with this id, if it is the account's. */
  async find(account: Account, id: number): Promise<WebhookEndpoint | undefined> {
    const endpoint = await this.store.endpoint(id);
    return endpoint?.accountId === account.id ? endpoint : undefined;
  }

  async remove(account: Account, id: number): Promise<boolean> {
    return (await this.find(account, id)) !== undefined && this.store.removeEndpoint(id);
  }

  async enable(account: Account, id: number): Promise<boolean> {
    if (!(await this.find(account, id))) return false;
    await this.store.setDisabled(id, null, null);
    return true;
  }

  /** Sends a `webhook.test` message now, signed like every delivery, and answers how it went (nothing is recorded). */
  async test(account: Account, id: number): Promise<WebhookAttempt | undefined> {
    const endpoint = await this.find(account, id);
    if (!endpoint) return undefined;
    const now = this.clock();
    const body = JSON.stringify({ id: '0', type: 'webhook.test', time: new Date(now).toISOString(), account: account.name, actor: { kind: 'operator' }, data: {} });
    return this.sender.send(endpoint.url, endpoint.secret, `test_${endpoint.id}_${now}`, body, new Date(now));
  }

  async deliveries(account: Account, id: number, limit: number): Promise<Array<WebhookDelivery & { attemptsMade: WebhookAttempt[] }> | undefined> {
    if (!(await this.find(account, id))) return undefined;
    return this.store.deliveries(id, limit);
  }

  /** Sends a delivery again (due now), whatever its state. */
  async redeliver(account: Account, deliveryId: number): Promise<boolean> {
    const delivery = await this.store.delivery(deliveryId);
    if (!delivery || delivery.accountId !== account.id) return false;
    await this.store.redeliver(deliveryId, this.clock());
    return true;
  }
}
