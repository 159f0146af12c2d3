/**
 * What an owner types for billing (the `billing set` and `plan add` commands, the console's
 * Plans page), read with the same rules and words at both doors: every problem named by its
 * parameter.
 */
import { isEmail } from '../members/fields.js';
import { parseDuration, type BillingSettings, type Plan, type RefundRule } from './billing.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface PlanInput {
  readonly name: string;
  readonly title?: string;
  readonly stripePrice?: string;
  readonly paypalItem?: string;
  readonly amount?: string;
  readonly currency?: string;
  readonly grace?: string;
  /** `NAME=VALUE` each. */
  readonly fields: readonly string[];
}

/** A plan, or every problem by the parameter's name (`name`, `stripe-price`, `grace`, …). */
export function readPlan(input: PlanInput): { plan: Omit<Plan, 'createdAt'> } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const given = (value: string | undefined) => (value === undefined || value.trim() === '' ? undefined : value.trim());
  const stripePrice = given(input.stripePrice);
  const paypalItem = given(input.paypalItem);
  const amount = given(input.amount);
  const currency = given(input.currency);
  if (!NAME.test(input.name)) errors.name = '1 to 64 of letters, digits, . _ - (beginning with a letter or digit)';
  if (!stripePrice && !paypalItem) errors['stripe-price'] = 'a plan is paid for by a Stripe price, a PayPal item, or both';
  if (stripePrice !== undefined && !/^(price|plan)_\S{1,200}$/.test(stripePrice)) errors['stripe-price'] = 'a Stripe price id begins with price_';
  if (paypalItem !== undefined && paypalItem.length > 127) errors['paypal-item'] = 'at most 127 characters (PayPal’s item_number)';
  const grace = parseDuration(given(input.grace) ?? '0');
  if (grace === undefined) errors.grace = `a duration such as 3d, 12h, 30m or 0, got "${input.grace}"`;
  if (amount !== undefined && !/^\d{1,9}(\.\d{1,2})?$/.test(amount)) errors.amount = 'a price such as 9.99';
  if (currency !== undefined && !/^[A-Za-z]{3}$/.test(currency)) errors.currency = 'a three-letter code such as USD';
  const fields = new Map<string, string>();
  for (const field of input.fields) {
    const at = field.indexOf('=');
    const name = at < 0 ? field : field.slice(0, at).trim();
    if (at < 0 || !NAME.test(name)) errors.field = `NAME=VALUE with a profile field's name, got "${field}"`;
    else fields.set(name, field.slice(at + 1).trim());
  }
  if (Object.keys(errors).length > 0) return { errors };
  return {
    plan: {
      name: input.name,
      title: given(input.title) ?? input.name,
      stripePrice: stripePrice ?? null,
      paypalItem: paypalItem ?? null,
      amount: amount ?? null,
      currency: currency?.toUpperCase() ?? null,
      graceSeconds: grace!,
      fields,
    },
  };
}

export interface SettingsInput {
  readonly stripeSecretKey?: string;
  readonly stripeWebhookSecret?: string;
  readonly paypalReceiver?: string;
  readonly onRefund?: string;
}

/** The settings held with what was given changed (undefined: unchanged; "": cleared), or every problem by parameter. */
export function readSettings(held: BillingSettings, input: SettingsInput): { settings: BillingSettings } | { errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const key = input.stripeSecretKey?.trim();
  const secret = input.stripeWebhookSecret?.trim();
  const receiver = input.paypalReceiver?.trim();
  const refund = input.onRefund?.trim();
  if (key !== undefined && key !== '' && !/^(sk|rk)_\S{8,}$/.test(key)) errors['stripe-secret-key'] = 'a Stripe secret key begins with sk_ or rk_';
  if (secret !== undefined && secret !== '' && !/^whsec_\S{8,}$/.test(secret)) errors['stripe-webhook-secret'] = 'a Stripe webhook signing secret begins with whsec_';
  if (receiver !== undefined && receiver !== '' && !isEmail(receiver)) errors['paypal-receiver'] = 'an e-mail address';
  if (refund !== undefined && refund !== 'suspend' && refund !== 'keep') errors['on-refund'] = 'suspend or keep';
  if (Object.keys(errors).length > 0) return { errors };
  return {
    settings: {
      stripeSecretKey: key ?? held.stripeSecretKey,
      stripeWebhookSecret: secret ?? held.stripeWebhookSecret,
      paypalReceiver: receiver ?? held.paypalReceiver,
      onRefund: (refund as RefundRule | undefined) ?? held.onRefund,
    },
  };
}

/** A secret as it is shown again: its kind and its last four characters. */
export function masked(secret: string): string {
  if (secret === '') return '';
  const kind = /^(sk|rk|whsec)_((test|live)_)?/.exec(secret)?.[0] ?? '';
  return `${kind}…${secret.slice(-4)}`;
}
