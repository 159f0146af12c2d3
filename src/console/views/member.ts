import type { BillingRecord } from '../../billing/billing-store.js';
import type { MemberBilling } from '../../billing/billing.js';
import type { Account } from '../../accounts/account.js';
/** A member's page (its fields, status and why, actions, edit form, sessions, logins, history), a new member, a deletion asked first. */
import type { Member } from '../../members/member.js';
import type { LoginEvent } from '../../members/login-records.js';
import type { SessionSummary } from '../../members/sessions.js';
import type { EventOrigin, StoredEvent } from '../../events/event.js';
import type { Role } from '../../operators/operator.js';
import { html } from '../../http/html.js';
import type { ConsoleKey } from '../../messages/catalog.js';
import { memberPath, membersPath } from '../paths.js';
import { backToMembers, layout, option, statusBadge, t, when, type Chrome } from './layout.js';

const REG_TYPES: Record<string, ConsoleKey> = { F: 'memberRegTypeF', P: 'memberRegTypeP', A: 'memberRegTypeA', M: 'memberRegTypeM' };

export interface MemberView {
  readonly account: string;
  readonly role: Role;
  readonly member: Member;
  readonly profile: ReadonlyMap<string, string>;
  readonly lockedUntil: number | null;
  readonly logins: readonly LoginEvent[];
  readonly history: readonly StoredEvent[];
  /** The member's live sessions, newest first. */
  readonly sessions: readonly SessionSummary[];
  /** Whether the account sends mail (the reset mail's button). */
  readonly mailOn: boolean;
  readonly now: number;
  /** A refused edit: what was typed (shown again, never the password), the field refused and why. */
  readonly edited?: { readonly values: Readonly<Record<string, string>>; readonly field?: string; readonly message: string };
  /** A paid member's billing state, and the providers' notices about it, newest first. */
  readonly billing?: MemberBilling;
  readonly payments?: readonly BillingRecord[];
}

/** Who made a change, as the history names it: the operator, the API key, the imported file, the member, the system. */
export function actorText(origin: EventOrigin): string {
  switch (origin.actor) {
    case 'operator':
      return origin.email ?? t('actorOperator');
    case 'api':
      return origin.name === undefined ? t('actorApi') : t('actorApiKey', { name: origin.name });
    case 'import':
      return origin.name === undefined ? t('actorImport') : t('actorImportOf', { name: origin.name });
    case 'member':
      return t('actorMember');
    default:
      return t('actorSystem');
  }
}

function statusWhy(view: MemberView): string {
  const { member, history, now } = view;
  if (member.status === 'A') return t(view.lockedUntil ? 'whyLocked' : 'whyActive');
  const change = history.find((event) => event.type === 'member.status_changed' || event.type === 'member.deleted');
  if (member.timeExpiry && member.timeExpiry.at <= now) return t('whyExpired', { when: when(member.timeExpiry.at) });
  if (member.loginExpiry && member.loginExpiry.left <= 0) return t('whyLoginsUsedUp');
  if (change) {
    const by = actorText(change.origin);
    const at = when(change.at);
    return typeof change.data.cause === 'string'
      ? t('whyChangedBecause', { by, cause: change.data.cause.replace('_', ' '), when: at })
      : t('whyChanged', { by, when: at });
  }
  return t(member.status === 'S' ? 'whySuspended' : 'whyDeleted');
}

/** A value in the history: "—" for none. */
const shown = (value: unknown) => (value === null || value === undefined || value === '' ? '—' : String(value));

/**
 * What an event did, in words; undefined for an update whose only change the next row says
 * (a status change has a row of its own). Values old → new, the password only named.
 */
function describeEvent(event: StoredEvent): string | undefined {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'member.updated': {
      const before = (data.old ?? {}) as Record<string, unknown>;
      const after = (data.new ?? {}) as Record<string, unknown>;
      const fields = ((data.changed as string[] | undefined) ?? [])
        .filter((name) => name !== 'status')
        .map((name) => (name === 'password' ? t('historyPasswordChanged') : `${name}: ${shown(before[name])} → ${shown(after[name])}`));
      const profile = Object.entries((data.profile ?? {}) as Record<string, { old: unknown; new: unknown }>).map(
        ([name, change]) => `${name}: ${shown(change.old)} → ${shown(change.new)}`,
      );
      const all = [...fields, ...profile];
      return all.length > 0 ? all.join('; ') : undefined;
    }
    case 'member.status_changed':
      return data.cause
        ? t('historyStatusBecause', { from: String(data.from ?? ''), to: String(data.to ?? ''), cause: String(data.cause) })
        : t('historyStatus', { from: String(data.from ?? ''), to: String(data.to ?? '') });
    case 'member.bulk_updated': {
      // One event for every member the update changed: what it set, not each one's old value.
      const set = Object.entries((data.set ?? {}) as Record<string, unknown>).map(([name, value]) =>
        name === 'password' ? t('historyPasswordChanged') : `${name} → ${shown(value)}`,
      );
      const profile = (data.profile ?? {}) as { set?: Record<string, unknown>; deleted?: unknown[] };
      const fields = [
        ...Object.entries(profile.set ?? {}).map(([name, value]) => `${name} → ${shown(value)}`),
        ...(profile.deleted ?? []).map((name) => t('historyFieldRemoved', { name: String(name) })),
      ];
      const count = typeof data.count === 'number' ? data.count.toLocaleString('en') : '?';
      const members = `${count} ${t(data.count === 1 ? 'member' : 'members')}`;
      const changes = [...set, ...fields].join('; ') || t('historyNothingSet');
      return t(data.selector === 'filter' ? 'historyBulkByFilter' : 'historyBulk', { members, changes });
    }
    case 'member.paid':
    case 'member.payment_failed':
    case 'member.refunded':
    case 'member.disputed':
    case 'member.plan_changed':
      // The provider's words and ids: what an operator looks up in Stripe's or PayPal's dashboard.
      return t('historyBilling', {
        what: event.type.replace('member.', '').replace('_', ' '),
        provider: String(data.provider ?? ''),
        type: String(data.type ?? ''),
        id: String(data.event ?? ''),
        detail: [data.plan ? `plan ${String(data.plan)}` : '', data.paid_until ? `paid until ${String(data.paid_until)}` : '', data.status ? String(data.status) : '', data.from ? `${String(data.from)} → ${String(data.to)}` : '']
          .filter(Boolean)
          .join(', '),
      });
    case 'member.login':
      return data.ip
        ? t('historyLoginFrom', { outcome: String(data.outcome ?? ''), ip: String(data.ip) })
        : t('historyLogin', { outcome: String(data.outcome ?? '') });
    default:
      return event.type.replace('member.', '');
  }
}

export function memberPage(chrome: Chrome, view: MemberView): string {
  const { member, account, edited } = view;
  // A refused edit shows what was typed (never the password) and says why beside the field refused.
  const typed = (name: string, stored: string) => (name !== 'password' ? edited?.values[name] : undefined) ?? stored;
  const invalid = (name: string) => (edited?.field === name ? html` aria-invalid="true" aria-describedby="edit-error"` : '');
  const refusal = (name: string) => (edited?.field === name ? html`<span class="field-error" id="edit-error">${edited.message}</span>` : '');
  const canEdit = view.role !== 'viewer';
  const path = memberPath(account, member.id);
  const left = member.timeExpiry ? Math.max(0, member.timeExpiry.at - view.now) : null;
  const regType = REG_TYPES[member.regType] ? t(REG_TYPES[member.regType]!) : member.regType;
  const builtIn: Array<[string, unknown]> = [
    [t('id'), member.id],
    [t('login'), member.login],
    [t('email'), member.email],
    [t('memberEmailVerified'), when(member.emailVerifiedAt)],
    [
      t('registration'),
      member.regIp
        ? t('memberRegisteredFrom', { type: regType, when: when(member.regAt), ip: member.regIp })
        : t('memberRegistered', { type: regType, when: when(member.regAt) }),
    ],
    [
      t('memberLogins'),
      member.lastLoginIp
        ? t('memberLoginsLastFrom', { count: member.loginCount, when: when(member.lastLoginAt), ip: member.lastLoginIp })
        : t('memberLoginsLast', { count: member.loginCount, when: when(member.lastLoginAt) }),
    ],
    [
      t('memberTimeExpiry'),
      member.timeExpiry
        ? `${t(member.timeExpiry.action === 'D' ? 'expiryDeletedAt' : 'expirySuspendedAt', { when: when(member.timeExpiry.at) })}${left ? ` ${t('expiryDaysLeft', { days: Math.ceil(left / 86_400_000) })}` : ''}`
        : t('none'),
    ],
    [
      t('memberLoginExpiry'),
      member.loginExpiry
        ? t(member.loginExpiry.action === 'D' ? 'expiryDeletedAfter' : 'expirySuspendedAfter', { logins: member.loginExpiry.left })
        : t('none'),
    ],
    [t('memberOkUrl'), member.urlOk ?? ''],
    [t('memberFailUrl'), member.urlFail ?? ''],
    [
      t('memberBilling'),
      [member.billPc, member.billId, member.billItem, member.billCust, member.billSubscr, member.billQty].filter((v) => v).join(' · ') || '—',
    ],
  ];
  return layout(
    `${member.login} · ${account}`,
    chrome,
    html`${backToMembers(account)}
<div class="actions"><h1>${member.login}</h1>${statusBadge(member.status)}</div>
<div class="grid">
<div class="card"><h2>${t('memberHeading')}</h2><table class="kv"><tbody>${builtIn.map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</tbody></table></div>
<div class="card"><h2>${t('status')}</h2><p>${statusBadge(member.status)} ${statusWhy(view)}</p>
<p>${view.lockedUntil ? t('memberLockedUntil', { when: when(view.lockedUntil) }) : t('memberNotLocked')}</p>
${
  canEdit
    ? html`<div class="actions">
${view.lockedUntil ? html`<form method="post" action="${path}/unlock"><button type="submit">${t('memberUnlock')}</button></form>` : ''}
${member.status === 'A' ? html`<form method="post" action="${path}/status"><input type="hidden" name="status" value="S"><button type="submit" class="secondary">${t('suspend')}</button></form>` : html`<form method="post" action="${path}/status"><input type="hidden" name="status" value="A"><button type="submit">${t('restore')}</button></form>`}
${member.status !== 'D' ? html`<form method="post" action="${path}/status"><input type="hidden" name="status" value="D"><button type="submit" class="danger">${t('delete')}</button></form>` : ''}
</div>
${
  member.status !== 'D'
    ? html`<div class="actions">
${view.mailOn ? html`<form method="post" action="${path}/reset-mail"><button type="submit" class="secondary">${t('memberSendReset')}</button></form>` : ''}
${member.emailVerifiedAt ? '' : html`<form method="post" action="${path}/verify"><button type="submit" class="secondary">${t('memberMarkVerified')}</button></form>`}
</div>`
    : ''
}`
    : ''
}
<h2>${t('memberProfile')}</h2><table class="kv"><tbody>${view.profile.size === 0 ? html`<tr><td class="muted">${t('memberNoProfile')}</td></tr>` : ''}${[...view.profile].map(([k, v]) => html`<tr><th>${k}</th><td>${v}</td></tr>`)}</tbody></table></div>
</div>
${
  canEdit
    ? html`<div class="card"><h2>${t('memberEdit')}</h2><form id="edit-form" method="post" action="${path}/edit" class="edit">
<label>${t('login')} <input name="login" value="${typed('login', member.login)}" required${invalid('login')}>${refusal('login')}</label>
<label>${t('email')} <input name="email" value="${typed('email', member.email)}" required${invalid('email')}>${refusal('email')}</label>
<label>${t('newPassword')} <input type="password" name="password" autocomplete="new-password" placeholder="${t('unchanged')}"${invalid('password')}>${refusal('password')}</label>
${[...view.profile].map(([k, v]) => html`<label>${k} <input name="profile:${k}" value="${typed(`profile:${k}`, v)}"${invalid(`profile:${k}`)}>${refusal(`profile:${k}`)}</label>`)}
<label>${t('memberOkUrl')} <input name="urlok" value="${typed('urlok', member.urlOk ?? '')}"${invalid('urlok')}>${refusal('urlok')}</label>
<label>${t('memberFailUrl')} <input name="urlfail" value="${typed('urlfail', member.urlFail ?? '')}"${invalid('urlfail')}>${refusal('urlfail')}</label>
<label>${t('memberTimeExpiry')} <select name="is_exp_time"${invalid('is_exp_time')}>${option('', t('unchanged'), typed('is_exp_time', ''))}${option('N', t('none'), typed('is_exp_time', ''))}${option('S', t('expirySuspendAfter'), typed('is_exp_time', ''))}${option('D', t('expiryDeleteAfter'), typed('is_exp_time', ''))}</select>${refusal('is_exp_time')}</label>
<label>${t('memberThisLong')} <span class="pair"><input name="exp_time" inputmode="numeric" placeholder="30" value="${typed('exp_time', '')}"${invalid('exp_time')}><select name="exp_time_type">${option('D', t('days'), typed('exp_time_type', 'D'))}${option('M', t('months'), typed('exp_time_type', 'D'))}${option('Y', t('years'), typed('exp_time_type', 'D'))}${option('h', t('hours'), typed('exp_time_type', 'D'))}</select></span>${refusal('exp_time')}</label>
<label>${t('memberLoginExpiry')} <select name="is_exp_logins"${invalid('is_exp_logins')}>${option('', t('unchanged'), typed('is_exp_logins', ''))}${option('N', t('none'), typed('is_exp_logins', ''))}${option('S', t('expirySuspendAfter'), typed('is_exp_logins', ''))}${option('D', t('expiryDeleteAfter'), typed('is_exp_logins', ''))}</select>${refusal('is_exp_logins')}</label>
<label>${t('memberThisManyLogins')} <input name="exp_logins" inputmode="numeric" placeholder="10" value="${typed('exp_logins', '')}"${invalid('exp_logins')}>${refusal('exp_logins')}</label>
<label>${t('memberAddField')} <input name="new_field" placeholder="${t('profileFieldPlaceholder')}" value="${typed('new_field', '')}"${invalid('new_field')}>${refusal('new_field')}</label>
<label>${t('withValue')} <input name="new_value" value="${typed('new_value', '')}"${invalid('new_value')}>${refusal('new_value')}</label>
<div class="actions"><button type="submit">${t('save')}</button></div></form>
<p class="muted">${t('memberEmptyFieldRemoved')}</p></div>`
    : ''
}
${paymentsCard(view, canEdit, path)}
<div class="card"><div class="actions"><h2>${t('memberSessions')}</h2>${
      canEdit && view.sessions.length > 0
        ? html`<form method="post" action="${path}/sessions/end-all"><button type="submit" class="secondary">${t('sessionsEndAll')}</button></form>`
        : ''
    }</div>
<table><thead><tr><th>${t('sessionSignedIn')}</th><th>${t('sessionLastSeen')}</th><th>${t('ip')}</th><th>${t('sessionKeptSignedIn')}</th>${canEdit ? html`<th></th>` : ''}</tr></thead><tbody>
${view.sessions.length === 0 ? html`<tr><td colspan="5" class="muted">${t('memberNoSession')}</td></tr>` : ''}
${view.sessions.map(
  (session) =>
    html`<tr><td>${when(session.createdAt)}</td><td>${when(session.seenAt ?? session.createdAt)}</td><td>${session.ip ?? '—'}</td><td>${t(session.remember ? 'yes' : 'no')}</td>${
      canEdit
        ? html`<td><form method="post" action="${path}/sessions/end"><input type="hidden" name="session" value="${session.digest}"><button type="submit" class="secondary">${t('sessionEndThisOne')}</button></form></td>`
        : ''
    }</tr>`,
)}</tbody></table></div>
<div class="grid">
<div class="card"><h2>${t('memberLastLogins')}</h2><table><thead><tr><th>${t('time')}</th><th>${t('outcome')}</th><th>${t('ip')}</th></tr></thead><tbody>
${view.logins.length === 0 ? html`<tr><td colspan="3" class="muted">${t('memberNoLogins')}</td></tr>` : ''}
${view.logins.map((login) => html`<tr><td>${when(login.at)}</td><td>${login.outcome}</td><td>${login.ip}</td></tr>`)}</tbody></table></div>
<div class="card"><h2>${t('memberHistory')}</h2><table><thead><tr><th>${t('time')}</th><th>${t('historyWhat')}</th><th>${t('historyBy')}</th></tr></thead><tbody>
${view.history.length === 0 ? html`<tr><td colspan="3" class="muted">${t('memberNoEvents')}</td></tr>` : ''}
${view.history.map((event) => {
  const what = describeEvent(event);
  return what === undefined ? '' : html`<tr><td>${when(event.at)}</td><td>${what}</td><td>${actorText(event.origin)}</td></tr>`;
})}</tbody></table></div>
</div>`,
  );
}

/**
 * The new-member form: a login, an address, a password (or one generated, shown once, or a
 * link to choose one mailed to the member), the account's own fields, and one more field.
 */
export function newMemberPage(chrome: Chrome, account: Account, form: Readonly<Record<string, string>> = {}): string {
  const mailOn = account.settings.smtpUrl !== '';
  const linkChecked = form.mail_link === undefined ? mailOn && Object.keys(form).length === 0 : form.mail_link === '1';
  return layout(
    t('newMemberTitle', { account: account.name }),
    chrome,
    html`${backToMembers(account.name)}<h1>${t('newMember')}</h1>
<div class="card"><form method="post" action="${membersPath(account.name)}/new" class="edit">
<label>${t('login')} <input name="login" value="${form.login ?? ''}" required></label>
<label>${t('email')} <input type="email" name="email" value="${form.email ?? ''}"${account.settings.requireEmail ? html` required` : ''}></label>
<label>${t('password')} <input type="password" name="password" autocomplete="new-password" placeholder="${t('passwordGenerated')}"></label>
${mailOn ? html`<label class="inline"><input type="checkbox" name="mail_link" value="1"${linkChecked ? html` checked` : ''}> ${t('newMemberMailLink')}</label>` : ''}
${account.settings.registrationFields.map(
  (field) => html`<label>${field.label || field.name} <input name="profile:${field.name}" value="${form[`profile:${field.name}`] ?? ''}"></label>`,
)}
<label>${t('profileField')} <input name="new_field" value="${form.new_field ?? ''}" placeholder="${t('profileFieldPlaceholder')}"></label>
<label>${t('withValue')} <input name="new_value" value="${form.new_value ?? ''}"></label>
<div class="actions"><button type="submit">${t('create')}</button></div></form></div>`,
  );
}

/** Delete asked once more: what it does, and a button that does it. */
export function confirmDeletePage(chrome: Chrome, account: string, member: Member): string {
  const path = memberPath(account, member.id);
  return layout(
    t('deleteMemberTitle', { login: member.login }),
    chrome,
    html`<div class="narrow card"><h1>${t('deleteMemberTitle', { login: member.login })}</h1>
<p>${t('deleteMemberConfirm', { login: member.login, email: member.email })} <strong>${t('restore')}</strong> ${t('deleteMemberRestore')}</p>
<div class="actions"><form method="post" action="${path}/status"><input type="hidden" name="status" value="D"><input type="hidden" name="confirm" value="1"><button type="submit" class="danger">${t('deleteMemberButton', { login: member.login })}</button></form>
<a class="button secondary" href="${path}">${t('cancel')}</a></div></div>`,
  );
}

/** A member made with a generated password: shown here once (this page is no redirect, so the password is in no address). */
export function memberCreatedPage(chrome: Chrome, account: string, created: { id: number; login: string; password: string }): string {
  return layout(
    t('memberCreated'),
    chrome,
    html`<div class="notice ok" role="status">${t('memberCreatedPassword', { login: created.login, password: created.password })}</div><p><a class="button" href="${memberPath(account, created.id)}">${t('openMember', { login: created.login })}</a> <a href="${membersPath(account)}">${t('backToTheMembers')}</a></p>`,
  );
}

/** A paid member's plan and paid-until date, the providers' notices about it, and an operator's grant of access without payment. */
function paymentsCard(view: MemberView, canEdit: boolean, path: string) {
  const { billing } = view;
  const payments = view.payments ?? [];
  if (!billing && payments.length === 0 && !canEdit) return '';
  const flags = billing ? [billing.status, billing.cancelAtPeriodEnd ? t('billingCancels') : '', billing.disputed ? t('billingDisputed') : ''].filter(Boolean).join(', ') : '';
  return html`<div class="card"><h2>${t('memberPayments')}</h2>
${billing ? html`<p>${t('memberPlanLine', { plan: billing.plan || '—', until: billing.paidUntil === null ? '—' : when(billing.paidUntil), state: flags || '—' })}</p>` : ''}
${
  payments.length === 0
    ? html`<p class="muted">${t('memberNoPayments')}</p>`
    : html`<table><thead><tr><th>${t('time')}</th><th>${t('historyWhat')}</th><th>${t('paymentId')}</th><th>${t('planPrice')}</th><th>${t('outcome')}</th></tr></thead><tbody>
${payments.map(
  (record) =>
    html`<tr><td>${when(record.receivedAt)}</td><td>${record.provider} ${record.type}<br><code>${record.eventId}</code></td><td><code>${record.payment ?? ''}</code></td><td>${record.amount === null ? '' : `${(record.amount / 100).toFixed(2)} ${(record.currency ?? '').toUpperCase()}`}</td><td>${record.outcome}</td></tr>`,
)}</tbody></table>`
}
${canEdit ? html`<form method="post" action="${path}/comp" class="edit"><label>${t('compUntil')} <input name="until" type="date" required></label><div class="actions"><button type="submit" class="secondary">${t('compGrant')}</button></div></form><p class="muted">${t('compHelp')}</p>` : ''}</div>`;
}
