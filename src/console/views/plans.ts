/** The account's plans and its payment providers (owners): what a payment grants, and where the providers send their notices. */
import type { Account } from '../../accounts/account.js';
import { masked } from '../../billing/billing-input.js';
import { formatDuration, type BillingSettings, type Plan } from '../../billing/billing.js';
import { html } from '../../http/html.js';
import { plansPath } from '../paths.js';
import { accountTitle, backToMembers, layout, t, type Chrome } from './layout.js';

export interface PlansView {
  readonly settings: BillingSettings;
  readonly plans: readonly Plan[];
  /** Where Stripe and PayPal send their notices (PUBLIC_URL's, or this request's). */
  readonly base: string;
  /** What a refused form had, shown again, and its problems by parameter. */
  readonly values?: Readonly<Record<string, string>>;
  readonly errors?: Readonly<Record<string, string>>;
}

const error = (errors: Readonly<Record<string, string>>, name: string) => (errors[name] ? html`<span class="error">${errors[name]}</span>` : '');

export function plansPage(chrome: Chrome, account: Account, view: PlansView): string {
  const path = plansPath(account.name);
  const errors = view.errors ?? {};
  const values = view.values ?? {};
  const { settings } = view;
  const hook = `${view.base}/billing/${encodeURIComponent(account.name)}`;
  return layout(
    accountTitle('navPlans', account.name),
    chrome,
    html`${backToMembers(account.name)}<h1>${accountTitle('navPlans', account.name)}</h1>
<div class="card"><table><thead><tr><th>${t('name')}</th><th>${t('planTitle')}</th><th>${t('planStripePrice')}</th><th>${t('planPaypalItem')}</th><th>${t('planPrice')}</th><th>${t('planGrace')}</th><th>${t('planFields')}</th><th></th></tr></thead><tbody>
${view.plans.length === 0 ? html`<tr><td colspan="8" class="muted">${t('plansNone')}</td></tr>` : ''}
${view.plans.map(
  (plan) => html`<tr><td>${plan.name}</td><td>${plan.title}</td><td>${plan.stripePrice ? html`<code>${plan.stripePrice}</code>` : ''}</td><td>${plan.paypalItem ? html`<code>${plan.paypalItem}</code>` : ''}</td>
<td>${plan.amount ? `${plan.amount} ${plan.currency ?? ''}` : ''}</td><td>${formatDuration(plan.graceSeconds)}</td><td>${[...plan.fields].map(([name, value]) => `${name}=${value}`).join(', ')}</td>
<td><form method="post" action="${path}/remove"><input type="hidden" name="name" value="${plan.name}"><button type="submit" class="danger">${t('remove')}</button></form></td></tr>`,
)}</tbody></table></div>
<div class="card"><h2>${t('planAdd')}</h2>${errors.form ? html`<p class="error" role="alert">${errors.form}</p>` : ''}<form method="post" action="${path}/add" class="edit">
<label>${t('name')} <input name="name" required maxlength="64" placeholder="gold" value="${values.name ?? ''}">${error(errors, 'name')}</label>
<label>${t('planTitle')} <input name="title" maxlength="100" placeholder="Gold" value="${values.title ?? ''}"></label>
<label>${t('planStripePrice')} <input name="stripe-price" placeholder="price_…" value="${values['stripe-price'] ?? ''}">${error(errors, 'stripe-price')}</label>
<label>${t('planPaypalItem')} <input name="paypal-item" value="${values['paypal-item'] ?? ''}">${error(errors, 'paypal-item')}</label>
<label>${t('planAmount')} <input name="amount" placeholder="9.99" value="${values.amount ?? ''}">${error(errors, 'amount')}</label>
<label>${t('planCurrency')} <input name="currency" placeholder="USD" maxlength="3" value="${values.currency ?? ''}">${error(errors, 'currency')}</label>
<label>${t('planGrace')} <input name="grace" placeholder="3d" value="${values.grace ?? ''}">${error(errors, 'grace')}</label>
<label>${t('planFields')} <input name="fields" placeholder="plan=gold, level=3" value="${values.fields ?? ''}">${error(errors, 'field')}</label>
<div class="actions"><button type="submit">${t('add')}</button></div></form>
<p class="muted">${t('planHelp')}</p></div>
<div class="card"><h2>${t('billingProviders')}</h2>
<p>${t('billingStripeHook')} <code>${hook}/stripe</code></p>
<p>${t('billingPaypalHook')} <code>${hook}/paypal</code></p>
<form method="post" action="${path}/settings" class="edit">
<label>${t('billingStripeKey')} <input name="stripe-secret-key" type="password" autocomplete="off" placeholder="${masked(settings.stripeSecretKey) || 'sk_live_…'}">${error(errors, 'stripe-secret-key')}</label>
<label>${t('billingStripeWebhookSecret')} <input name="stripe-webhook-secret" type="password" autocomplete="off" placeholder="${masked(settings.stripeWebhookSecret) || 'whsec_…'}">${error(errors, 'stripe-webhook-secret')}</label>
<label>${t('billingPaypalReceiver')} <input name="paypal-receiver" type="email" value="${values['paypal-receiver'] ?? settings.paypalReceiver}">${error(errors, 'paypal-receiver')}</label>
<label>${t('billingOnRefund')} <select name="on-refund"><option value="suspend"${settings.onRefund === 'suspend' ? html` selected` : ''}>${t('billingRefundSuspend')}</option><option value="keep"${settings.onRefund === 'keep' ? html` selected` : ''}>${t('billingRefundKeep')}</option></select></label>
<div class="actions"><button type="submit">${t('save')}</button></div></form>
<p class="muted">${t('billingSecretsHelp')}</p></div>`,
  );
}
