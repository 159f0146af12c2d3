/**
 * PayPal's Instant Payment Notifications, for sites whose subscribe buttons send them
 * (`notify_url`): each is checked by posting its exact body back to PayPal (`PAYPAL_IPN_URL`,
 * `cmd=_notify-validate`), which answers VERIFIED only for one it sent; then the receiver must
 * be the account's, and a payment's amount and currency the plan's.
 */
import { NotAuthentic, ProviderUnavailable, type BillingNotice, type BillingProvider, type BillingSettings, type NoticeKind, type Plan, type ProviderRequest } from './billing.js';

const POSTBACK_TIMEOUT_MS = 10_000;

export class PayPalProvider implements BillingProvider {
  readonly name = 'paypal' as const;

  constructor(
    private readonly ipnUrl: string,
    private readonly clock: () => number,
  ) {}

  async read(request: ProviderRequest, settings: BillingSettings, plans: readonly Plan[]): Promise<BillingNotice[]> {
    if (settings.paypalReceiver === '') throw new NotAuthentic('this account takes no PayPal notifications (billing set --paypal-receiver)');
    await this.confirm(request.body);
    // IPN is form-encoded; its charset is the account's PayPal setting (UTF-8 recommended).
    const ipn = new URLSearchParams(request.body.toString('utf8'));
    return [ipnNotice(ipn, settings, plans, this.clock())];
  }

  /** PayPal's word that it sent this body: VERIFIED, else NotAuthentic; no answer, ProviderUnavailable. */
  private async confirm(body: Buffer): Promise<void> {
    let answer: string;
    try {
      const response = await fetch(this.ipnUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'member-api IPN verification' },
        body: Buffer.concat([Buffer.from('cmd=_notify-validate&'), body]),
        signal: AbortSignal.timeout(POSTBACK_TIMEOUT_MS),
      });
      if (!response.ok) throw new ProviderUnavailable(`PayPal's postback answered ${response.status}`);
      answer = (await response.text()).trim();
    } catch (error) {
      if (error instanceof ProviderUnavailable) throw error;
      throw new ProviderUnavailable(`PayPal's postback did not answer: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (answer !== 'VERIFIED') throw new NotAuthentic(`PayPal did not confirm the notification (${answer.slice(0, 20) || 'empty answer'})`);
  }
}

/** A confirmed IPN as a notice. */
export function ipnNotice(ipn: URLSearchParams, settings: BillingSettings, plans: readonly Plan[], now: number): BillingNotice {
  const get = (name: string) => {
    const value = ipn.get(name)?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const txnType = get('txn_type') ?? '';
  const status = get('payment_status') ?? '';
  const txn = get('txn_id');
  const subscription = get('subscr_id') ?? get('recurring_payment_id');
  // A payment's transaction id; else the message's own (every later failure of one subscription is another), else the subscription's.
  const id = txn ? `${txn}:${status || txnType}` : `${txnType}:${get('ipn_track_id') ?? subscription ?? ''}`;
  const item = get('item_number') ?? get('item_number1');
  const plan = item === undefined ? undefined : plans.find((p) => p.paypalItem === item);
  const gross = get('mc_gross') ?? get('mc_amount3');
  const currency = get('mc_currency');
  const base = {
    provider: 'paypal' as const,
    id,
    type: txnType || status.toLowerCase() || 'ipn',
    at: now,
    customer: get('payer_id'),
    subscription,
    email: get('payer_email'),
    item,
    checkout: get('custom'),
    currency: currency?.toUpperCase(),
    amount: gross === undefined ? undefined : Math.round(Math.abs(Number(gross)) * 100),
  };
  const as = (kind: NoticeKind, more: Partial<BillingNotice> = {}): BillingNotice => ({ ...base, kind, ...more });
  const receiver = (get('receiver_email') ?? get('business') ?? '').toLowerCase();
  if (receiver !== settings.paypalReceiver.toLowerCase()) return as('ignored', { refused: `receiver_email ${receiver || '(none)'} is not this account's` });
  // A payment or a sign-up must be the plan's price, in its currency.
  const pays = txnType === 'subscr_signup' || (status === 'Completed' && (txnType === 'subscr_payment' || txnType === 'web_accept'));
  if (pays && plan?.amount && gross !== undefined && Number(gross) !== Number(plan.amount))
    return as('ignored', { refused: `amount ${gross} is not plan ${plan.name}'s ${plan.amount}` });
  if (pays && plan?.currency && currency !== undefined && currency.toUpperCase() !== plan.currency.toUpperCase())
    return as('ignored', { refused: `currency ${currency} is not plan ${plan.name}'s ${plan.currency}` });
  switch (status) {
    case 'Refunded':
      return as('refunded', { charge: get('parent_txn_id'), payment: txn });
    case 'Reversed':
      return as('disputed', { charge: get('parent_txn_id') });
    case 'Canceled_Reversal':
      return as('dispute_closed', { charge: get('parent_txn_id'), won: true });
  }
  switch (txnType) {
    case 'subscr_signup':
      return as('checkout', { period: get('period3') });
    case 'subscr_payment':
      if (status !== 'Completed') return as('ignored');
      return as('paid', { payment: txn, charge: txn, periodFrom: now });
    case 'web_accept':
      if (status !== 'Completed') return as('ignored');
      return as('paid', { payment: txn, charge: txn, oneTime: true });
    case 'subscr_failed':
      return as('payment_failed', { fixUrl: 'https://www.paypal.com/myaccount/autopay/' });
    case 'subscr_cancel':
      return as('subscription', { cancelAtPeriodEnd: true });
    case 'subscr_eot':
      return as('ended');
    default:
      return as('ignored');
  }
}
