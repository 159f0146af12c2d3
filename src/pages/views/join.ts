/** Joining by paying: the plans, and the confirmation page a checkout comes back to. */
import type { Plan } from '../../billing/billing.js';
import { html } from '../../http/html.js';
import { alert, formToken, input, layout, type Chrome } from './layout.js';

export interface JoinView {
  readonly plans: readonly Plan[];
  /** The signed-in member who is buying (no credentials asked then). */
  readonly login?: string;
  readonly values?: Readonly<Record<string, string>>;
  readonly errors?: Readonly<Record<string, string>>;
  readonly error?: string;
  /** The plan the signed-in member pays for already: no second checkout, its portal instead. */
  readonly subscribed?: Subscribed;
}

/** A subscription the member has: its plan's title, and whether it ends at its period's end (renewed in the portal). */
export interface Subscribed {
  readonly plan: string;
  readonly ending: boolean;
}

export function joinPage(chrome: Chrome, view: JoinView): string {
  const { t, base, account } = chrome;
  const errors = view.errors ?? {};
  const values = view.values ?? {};
  const chosen = values.plan ?? view.plans[0]?.name;
  return layout(
    chrome,
    t('joinTo', { name: account.settings.pageName || account.name }),
    html`${alert(view.error ?? (Object.keys(errors).length > 0 ? t('errorSummary') : undefined))}
${view.subscribed !== undefined
  ? html`<p>${t(view.subscribed.ending ? 'subscriptionEnding' : 'alreadySubscribed', { plan: view.subscribed.plan })}</p>
<form method="post" action="${base}billing">${formToken(chrome)}<button type="submit">${t('manageBilling')}</button></form>
<p class="links"><a href="${base}profile">${t('profile')}</a></p>`
  : view.plans.length === 0
  ? html`<p>${t('noPlans')}</p>`
  : html`<p>${view.login ? t('joinAs', { login: view.login }) : t('joinText')}</p>
<form id="join-form" method="post" action="${base}join" novalidate>${formToken(chrome)}
<fieldset class="plans"><legend>${t('plan')}</legend>
${view.plans.map((plan) => html`<label class="check" for="plan-${plan.name}"><input id="plan-${plan.name}" type="radio" name="plan" value="${plan.name}"${plan.name === chosen ? html` checked` : ''}> ${plan.title}${plan.amount ? html` — ${plan.amount} ${plan.currency ?? ''}` : ''}</label>`)}
</fieldset>${errors.plan ? html`<p class="error">${errors.plan}</p>` : ''}
${view.login
  ? ''
  : html`${input('login', t('login'), { value: values.login, autocomplete: 'username', required: true, error: errors.login })}
${input('email', t('email'), { type: 'email', value: values.email, autocomplete: 'email', required: true, error: errors.email })}
${input('password', t('newPassword'), { type: 'password', autocomplete: 'new-password', required: true, error: errors.password, hint: t('passwordHint', { min: account.settings.minPasswordLength }) })}
${input('confirm', t('passwordAgain'), { type: 'password', autocomplete: 'new-password', required: true, error: errors.confirm })}`}
<button type="submit">${t('continue')}</button>
</form>`}
${view.login || view.subscribed !== undefined ? '' : html`<p class="links"><span>${t('haveAccount')} <a href="${base}">${t('signIn')}</a></span></p>`}`,
  );
}

/** The page a paid checkout comes back to, while the provider's confirmation is awaited (it refreshes itself: a Refresh header). */
export function confirmingPage(chrome: Chrome, late: boolean): string {
  const { t } = chrome;
  return layout(chrome, t('confirming'), html`<p role="status">${late ? t('confirmingLate') : t('confirmingText')}</p>`);
}
