/** Webhooks: an account's receivers of its events, and the deliveries to them. */

export interface WebhookEndpoint {
  readonly id: number;
  readonly accountId: number;
  /** The operator's name for it (`webhook add --name`), unique within the account; null for none. */
  readonly name: string | null;
  readonly url: string;
  /** `whsec_…`, the Standard Webhooks signing secret. */
  readonly secret: string;
  /** The event types sent; undefined for all. */
  readonly types: readonly string[] | undefined;
  readonly createdAt: number;
  /** The last event id turned into deliveries. */
  readonly cursor: number;
  readonly disabledAt: number | null;
  readonly disabledReason: string | null;
}

export type DeliveryState = 'pending' | 'delivered' | 'failed';

export interface WebhookDelivery {
  readonly id: number;
  readonly endpointId: number;
  readonly accountId: number;
  readonly eventId: number;
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly nextAt: number;
  readonly createdAt: number;
  readonly deliveredAt: number | null;
  readonly lastError: string | null;
}

export interface WebhookAttempt {
  readonly at: number;
  /** The receiver's HTTP status; null when it gave none (timeout, refused, blocked address). */
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

/** An attempt's outcome and what it makes of its delivery. */
export interface AttemptResult {
  readonly deliveryId: number;
  readonly attempt: WebhookAttempt;
  readonly state: DeliveryState;
  readonly nextAt: number;
}

/** What the webhooks need from storage. */
export interface WebhookStore {
  /** A new endpoint; it gets the events written from now on. A name the account's other endpoint has: UniqueViolation. */
  insertEndpoint(endpoint: {
    accountId: number;
    name: string | null;
    url: string;
    secret: string;
    types: readonly string[] | undefined;
    createdAt: number;
  }): Promise<WebhookEndpoint>;
  endpoints(accountId: number): Promise<WebhookEndpoint[]>;
  endpoint(id: number): Promise<WebhookEndpoint | undefined>;
  /** The account's endpoint of this name. */
  endpointNamed(accountId: number, name: string): Promise<WebhookEndpoint | undefined>;
  /** Every enabled endpoint (of every account): the dispatcher's round. */
  enabledEndpoints(): Promise<WebhookEndpoint[]>;
  removeEndpoint(id: number): Promise<boolean>;
  /** Disables (with why) or, with null, re-enables an endpoint. */
  setDisabled(id: number, at: number | null, reason: string | null): Promise<void>;
  /**
   * Turns events into deliveries, in one transaction, if the endpoint's cursor is still
   * `from` (another server did not do it meanwhile): answers whether it did.
   */
  fanOut(endpointId: number, accountId: number, from: number, to: number, eventIds: readonly number[], now: number): Promise<boolean>;
  /** Takes the endpoint's deliveries in hand until `until`, unless another server holds them. */
  lease(endpointId: number, now: number, until: number): Promise<boolean>;
  /** Moves a lease this server holds (`held`, its end) on to `until`; false if it was lost. */
  renewLease(endpointId: number, held: number, until: number): Promise<boolean>;
  /** Gives back a lease this server holds (`held`, its end). */
  release(endpointId: number, held: number): Promise<void>;
  /** The endpoint's pending deliveries, in event order. */
  pending(endpointId: number, limit: number): Promise<WebhookDelivery[]>;
  /** Writes attempts and their deliveries' new states, in one transaction. */
  recordAttempts(results: readonly AttemptResult[]): Promise<void>;
  /** The endpoint's latest deliveries, newest first, with their attempts. */
  deliveries(endpointId: number, limit: number): Promise<Array<WebhookDelivery & { attemptsMade: WebhookAttempt[] }>>;
  delivery(id: number): Promise<WebhookDelivery | undefined>;
  /** Makes a delivery pending again, due now. */
  redeliver(id: number, now: number): Promise<void>;
}
