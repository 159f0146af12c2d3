/** The operator's side of webhooks: endpoints added, listed, removed, re-enabled, tested; deliveries listed and sent again. */
import { randomBytes } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import type { Clock } from '../common/clock.js';
import { UniqueViolation } from '../common/store-errors.js';
import { EVENT_TYPES } from '../events/event.js';
import { checkReceiver } from './address-guard.js';
import type { WebhookSender } from './sender.js';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookStore } from './webhook.js';

export type AddOutcome = { kind: 'added'; endpoint: WebhookEndpoint } | { kind: 'refused'; parameter: 'name' | 'url' | 'events'; reason: string };

/**
 * A receiver's name: a short label of letters, digits and `. _ -`, with at least one that is
 * not a digit, since where a receiver is named on the command line an all-digit name is an id.
 */
const ENDPOINT_NAME = /^(?!\d+$)[A-Za-z0-9._-]{1,64}$/;

/** Why a receiver cannot be named so, or undefined. */
function endpointNameProblem(name: string): string | undefined {
  if (ENDPOINT_NAME.test(name)) return undefined;
  if (/^\d+$/.test(name)) return `"${name}" is all digits, which is how an id is written: give a name with a letter in it`;
  return `"${name}" is not a name: 1 to 64 of letters, digits, . _ -`;
}

export class WebhooksService {
  constructor(
    private readonly store: WebhookStore,
    private readonly sender: WebhookSender,
    private readonly clock: Clock,
    private readonly allowPrivate: boolean,
  ) {}

  async add(account: Account, url: string, types: readonly string[] | undefined, name?: string): Promise<AddOutcome> {
    const badName = name === undefined ? undefined : endpointNameProblem(name);
    if (badName) return { kind: 'refused', parameter: 'name', reason: badName };
    if (name !== undefined && (await this.store.endpointNamed(account.id, name))) return { kind: 'refused', parameter: 'name', reason: nameTaken(name) };
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
    try {
      const endpoint = await this.store.insertEndpoint({
        accountId: account.id,
        name: name ?? null,
        url: parsed.toString(),
        secret,
        types: types && types.length > 0 ? types : undefined,
        createdAt: this.clock(),
      });
      return { kind: 'added', endpoint };
    } catch (error) {
      // Taken meanwhile, by an add that ran beside this one (the index holds the rule).
      if (error instanceof UniqueViolation && name !== undefined) return { kind: 'refused', parameter: 'name', reason: nameTaken(name) };
      throw error;
    }
  }

  list(account: Account): Promise<WebhookEndpoint[]> {
    return this.store.endpoints(account.id);
  }

  /** The account's endpoint of this name. */
  named(account: Account, name: string): Promise<WebhookEndpoint | undefined> {
    return this.store.endpointNamed(account.id, name);
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
    const body = JSON.stringify({
      id: '0',
      type: 'webhook.test',
      time: new Date(now).toISOString(),
      account: account.name,
      actor: { kind: 'operator' },
      data: {},
    });
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

const nameTaken = (name: string) => `"${name}" is the name of another webhook of this account`;
