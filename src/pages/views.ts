/**
 * The member pages' HTML: one layout in the account's look (its name, logo and accent colour)
 * and one function per page, all escaped templates (html.ts), no script. The stylesheet is
 * pages.css; only the account's accent is inline, allowed by its hash: policy() gives the
 * Content-Security-Policy that goes with a page.
 */
import { createHash } from 'node:crypto';
import type { Account } from '../accounts/account.js';
import type { RegistrationField } from '../accounts/registration-fields.js';
import { html, Html } from '../http/html.js';
import { PAGES_STYLESHEET } from './stylesheet.js';
import type { Language, MessageKey, Translate } from './catalog.js';
import type { PageTemplate, PageTemplateVariable } from '../accounts/page-template.js';

/**
 * An account's accent, the one style of its pages that is not in the stylesheet: a rule inline,
 * allowed by its hash in the page's policy; made once per accent.
 */
const accents = new Map<string, { text: string; source: string }>();
function accentOf(accent: string): { text: string; source: string } {
  let style = accents.get(accent);
  if (!style) {
    const text = `:root{--accent:${accent}}`;
    if (accents.size > 1000) accents.clear();
    accents.set(accent, (style = { text, source: `'sha256-${createHash('sha256').update(text).digest('base64')}'` }));
  }
  return style;
}

/** Who may show the account's pages in a frame: the pages themselves and the account's allowed origins, or nobody. */
export function framers(account: Account): string {
  const origins = account.settings.returnOrigins;
  return origins.length === 0 ? "'none'" : ["'self'", ...origins].join(' ');
}

/** The form's token, hidden: what a post with `Origin: null` is known by (form-token.ts). */
function formToken(chrome: Pick<Chrome, 'formToken'>): Html {
  return html`<input type="hidden" name="form_token" value="${chrome.formToken}">`;
}

/** What every page of one request shares: the account, its words. */
export interface Chrome {
  readonly account: Account;
  readonly t: Translate;
  readonly language: Language;
  /** `/auth/ACCOUNT/` (escaped in the templates like any value). */
  readonly base: string;
  /** The account's layout, or the built-in one. */
  readonly template: PageTemplate;
  /** The browser's form token, which each form carries (form-token.ts). */
  readonly formToken: string;
  /** Whether the token is new: the page sets its cookie. */
  readonly freshFormToken: boolean;
  /** PUBLIC_URL, when set (whether the cookie is Secure). */
  readonly publicUrl?: string;
}

/**
 * The page's Content-Security-Policy: nothing but its own stylesheet and the account's logo
 * (and, for the account's own layout, its style blocks and the site's assets),
 * forms posted to this site (and, for a form whose answer sends the browser on, those
 * origins: browsers hold a form's redirect to `form-action`), framed only by the account's
 * allowed origins (a site that shows its sign-in in an `<iframe>`), by none without them.
 */
export function policy(chrome: Pick<Chrome, 'account' | 'template'>, formTargets: readonly string[] = []): string {
  const { account, template } = chrome;
  // An account's own layout may take its stylesheets, images and fonts from the site itself.
  const site = template.builtIn ? [] : account.settings.returnOrigins;
  const logo = account.settings.pageLogoUrl === '' ? [] : [new URL(account.settings.pageLogoUrl).origin];
  const sources = (list: readonly string[]) => (list.length === 0 ? "'none'" : [...new Set(list)].join(' '));
  return [
    "default-src 'none'",
    `style-src ${sources(["'self'", accentOf(account.settings.pageAccent).source, ...template.styleSources, ...site])}`,
    `img-src ${sources([...logo, ...site])}`,
    `font-src ${sources(site)}`,
    `form-action 'self' ${[...new Set(formTargets)].join(' ')}`.trim(),
    `frame-ancestors ${framers(account)}`,
    "base-uri 'none'",
  ].join('; ');
}

export function layout(chrome: Chrome, title: string, content: Html): string {
  const { account, language, template } = chrome;
  const name = account.settings.pageName || account.name;
  const logo = account.settings.pageLogoUrl;
  const values: Record<PageTemplateVariable, Html | string> = {
    head: html`<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin"><meta name="robots" content="noindex">
<link rel="stylesheet" href="${PAGES_STYLESHEET.path}"><style>${new Html(accentOf(account.settings.pageAccent).text)}</style>`,
    content,
    logo: logo ? html`<img src="${logo}" alt="${name}">` : '',
    lang: language,
    title,
    name,
    logo_url: logo,
    accent: account.settings.pageAccent,
  };
  return template.parts.map((part) => (typeof part === 'string' ? part : html`${values[part.variable as PageTemplateVariable]}`.value)).join('');
}

/** A field's markup: its label, the input, its error (tied by aria-describedby). */
function input(
  id: string,
  label: string,
  options: { type?: string; value?: string; autocomplete?: string; required?: boolean; error?: string; hint?: string; autofocus?: boolean },
): Html {
  const described = [options.hint ? `${id}-hint` : '', options.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${id}">${label}</label>
<input id="${id}" name="${id}" type="${options.type ?? 'text'}" value="${options.value ?? ''}"${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''}${options.required ? html` required` : ''}${options.autofocus ? html` autofocus` : ''}${options.error ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}>
${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}${options.error ? html`<p class="error" id="${id}-error">${options.error}</p>` : ''}`;
}

const alert = (message: string | undefined) => (message ? html`<p class="alert" role="alert">${message}</p>` : '');
const notice = (message: string | undefined) => (message ? html`<p class="notice" role="status">${message}</p>` : '');

export interface SignInView {
  readonly error?: string;
  readonly login?: string;
  /** Where the browser goes after sign-in (already checked). */
  readonly returnTo?: string;
  readonly notice?: string;
}

export function signInPage(chrome: Chrome, view: SignInView): string {
  const { t, base, account } = chrome;
  return layout(
    chrome,
    t('signIn'),
    html`${alert(view.error)}${notice(view.notice)}
<form method="post" action="${base}">${formToken(chrome)}
<input type="hidden" name="action" value="login">
${view.returnTo ? html`<input type="hidden" name="return" value="${view.returnTo}">` : ''}
${input('login', t('login'), { value: view.login, autocomplete: 'username', required: true, autofocus: !view.login })}
${input('password', t('password'), { type: 'password', autocomplete: 'current-password', required: true, autofocus: Boolean(view.login) })}
<label class="check" for="remember"><input id="remember" name="remember" type="checkbox" value="1"> ${t('remember')}</label>
<button type="submit">${t('signIn')}</button>
</form>
<p class="links"><a href="${base}?action=lost">${t('forgot')}</a>${
      account.settings.registration === 'off' ? '' : html`<span>${t('noAccount')} <a href="${base}?action=reg">${t('register')}</a></span>`
    }</p>`,
  );
}

export interface RegisterView {
  readonly values: Readonly<Record<string, string>>;
  readonly errors: Readonly<Record<string, string>>;
  readonly error?: string;
  /** A line above the form (the original's form posted from another site: finish here). */
  readonly notice?: string;
}

/** A registration field's markup: a checkbox, a choice list, or an input of its kind. */
function registrationInput(field: RegistrationField, view: Pick<RegisterView, 'values' | 'errors'>, t: Translate): Html {
  const label = field.required ? field.label : `${field.label} ${t('optional')}`;
  const id = `f_${field.name}`;
  const value = view.values[field.name];
  const error = view.errors[field.name];
  const errorHtml = error ? html`<p class="error" id="${id}-error">${error}</p>` : '';
  const aria = error ? html` aria-invalid="true" aria-describedby="${id}-error"` : '';
  if (field.kind === 'checkbox') {
    return html`<label class="check" for="${id}"><input id="${id}" name="${id}" type="checkbox" value="yes"${value ? html` checked` : ''}${field.required ? html` required` : ''}${aria}> ${label}</label>${errorHtml}`;
  }
  if (field.kind === 'choice') {
    return html`<label for="${id}">${label}</label>
<select id="${id}" name="${id}"${field.required ? html` required` : ''}${aria}><option value="">—</option>${field.choices.map(
      (choice) => html`<option value="${choice}"${choice === value ? html` selected` : ''}>${choice}</option>`,
    )}</select>${errorHtml}`;
  }
  const type = { text: 'text', email: 'email', number: 'text', date: 'date' }[field.kind];
  return input(id, label, { type, value, required: field.required, error, autocomplete: field.kind === 'email' ? 'email' : undefined });
}

export function registerPage(chrome: Chrome, view: RegisterView): string {
  const { t, base, account } = chrome;
  const { values, errors } = view;
  return layout(
    chrome,
    t('registerTo', { name: account.settings.pageName || account.name }),
    html`${alert(view.error ?? (Object.keys(errors).length > 0 ? t('errorSummary') : undefined))}${notice(view.notice)}
<form method="post" action="${base}register" novalidate>${formToken(chrome)}
${input('login', t('login'), { value: values.login, autocomplete: 'username', required: true, error: errors.login })}
${input('email', t('email'), { type: 'email', value: values.email, autocomplete: 'email', required: true, error: errors.email })}
${input('password', t('newPassword'), { type: 'password', autocomplete: 'new-password', required: true, error: errors.password, hint: t('passwordHint', { min: account.settings.minPasswordLength }) })}
${input('confirm', t('passwordAgain'), { type: 'password', autocomplete: 'new-password', required: true, error: errors.confirm })}
${account.settings.registrationFields.map((field) => registrationInput(field, view, t))}
<div class="trap" aria-hidden="true"><label for="website">Website</label><input id="website" name="website" type="text" tabindex="-1" autocomplete="off"></div>
<button type="submit">${t('createAccount')}</button>
</form>
<p class="links"><span>${t('haveAccount')} <a href="${base}">${t('signIn')}</a></span></p>`,
  );
}

export function lostPage(chrome: Chrome, error?: string): string {
  const { t, base } = chrome;
  return layout(
    chrome,
    t('lost'),
    html`${alert(error)}<p>${t('lostText')}</p>
<form method="post" action="${base}lost">${formToken(chrome)}
${input('who', t('emailOrLogin'), { autocomplete: 'username', required: true, autofocus: true })}
<button type="submit">${t('sendLink')}</button>
</form>
<p class="links"><a href="${base}">${t('backToSignIn')}</a></p>`,
  );
}

export interface ProfileView {
  readonly login: string;
  readonly email: string;
  readonly profile: ReadonlyMap<string, string>;
  readonly notice?: string;
  readonly errors?: Readonly<Record<string, string>>;
  /** Values typed that were refused, shown again. */
  readonly values?: Readonly<Record<string, string>>;
  readonly passwordError?: { readonly field: 'current' | 'password' | 'confirm'; readonly message: string };
  readonly deleteError?: string;
}

export function profilePage(chrome: Chrome, view: ProfileView): string {
  const { t, base, account } = chrome;
  const errors = view.errors ?? {};
  const editable = account.settings.registrationFields.filter((field) => field.editable);
  const values: Record<string, string> = { ...Object.fromEntries(view.profile), email: view.email, ...(view.values ?? {}) };
  const pwError = (field: 'current' | 'password' | 'confirm') => (view.passwordError?.field === field ? view.passwordError.message : undefined);
  return layout(
    chrome,
    t('profile'),
    html`${notice(view.notice)}${alert(errors.form ?? (Object.keys(errors).length > 0 ? t('errorSummary') : undefined))}
<p>${t('signedInAs', { login: view.login })}</p>
<form method="post" action="${base}profile" novalidate>${formToken(chrome)}
${input('email', t('email'), { type: 'email', value: values.email, autocomplete: 'email', required: true, error: errors.email })}
${input('email_password', t('emailPassword'), { type: 'password', autocomplete: 'current-password', error: errors.email_password, hint: t('emailPasswordHint') })}
${editable.map((field) => registrationInput(field, { values, errors }, t))}
<button type="submit">${t('save')}</button>
</form>
<h2>${t('changePassword')}</h2>
<form method="post" action="${base}password">${formToken(chrome)}
<input type="text" name="username" value="${view.login}" autocomplete="username" hidden>
${input('current', t('currentPassword'), { type: 'password', autocomplete: 'current-password', required: true, error: pwError('current') })}
${input('password', t('newPassword'), { type: 'password', autocomplete: 'new-password', required: true, error: pwError('password'), hint: t('passwordHint', { min: account.settings.minPasswordLength }) })}
${input('confirm', t('passwordAgain'), { type: 'password', autocomplete: 'new-password', required: true, error: pwError('confirm') })}
<button type="submit" class="secondary">${t('changePassword')}</button>
</form>
<h2>${t('myData')}</h2>
<p><a href="${base}my-data" download>${t('downloadData')}</a></p>
<form method="post" action="${base}logout">${formToken(chrome)}<button type="submit" class="secondary">${t('signOut')}</button></form>
<h2>${t('deleteAccount')}</h2>
<p>${t('deleteText')}</p>
<form method="post" action="${base}delete">${formToken(chrome)}
<input type="text" name="username" value="${view.login}" autocomplete="username" hidden>
${input('delete_password', t('password'), { type: 'password', autocomplete: 'current-password', required: true, error: view.deleteError })}
<button type="submit" class="danger">${t('deleteButton')}</button>
</form>`,
  );
}

/** A page that says one thing, with a way on. */
export function messagePage(chrome: Chrome, title: MessageKey, text: MessageKey, link?: { href: string; label: MessageKey }): string {
  const { t } = chrome;
  return layout(chrome, t(title), html`<p>${t(text)}</p>${link ? html`<p class="links"><a href="${link.href}">${t(link.label)}</a></p>` : ''}`);
}

/** The page a reset link opens: a new password, twice, for the member the link is for. */
export function resetPage(chrome: Chrome, view: { token: string; login: string; action: string; error?: string }): string {
  const { t } = chrome;
  return layout(
    chrome,
    t('choosePassword'),
    html`<p>${t('choosePasswordFor')} <strong>${view.login}</strong>.</p>
${alert(view.error)}
<form method="post" action="${view.action}">
<input type="hidden" name="token" value="${view.token}">
<input type="text" name="username" value="${view.login}" autocomplete="username" hidden>
${input('password', t('newPasswordLabel'), { type: 'password', autocomplete: 'new-password', required: true, hint: t('passwordHint', { min: chrome.account.settings.minPasswordLength }) })}
${input('confirm', t('passwordAgain'), { type: 'password', autocomplete: 'new-password', required: true })}
<button type="submit">${t('setPassword')}</button>
</form>`,
  );
}

/** Signing out asked of a member who followed another site's link: a button, not a link, does it. */
export function signOutPage(chrome: Chrome): string {
  const { t, base } = chrome;
  return layout(
    chrome,
    t('signOut'),
    html`<p>${t('signOutAsk')}</p><form method="post" action="${base}logout">${formToken(chrome)}<button type="submit">${t('signOut')}</button></form>
<p class="links"><a href="${base}">${t('stay')}</a></p>`,
  );
}

/**
 * The page that sends the browser on after a sign-in when the destination is not one the
 * form's policy lists (a member's own `urlok` elsewhere): a link, followed at once.
 */
export function continuePage(chrome: Chrome, destination: string): string {
  const { t } = chrome;
  return layout(
    chrome,
    t('signedIn'),
    html`<meta http-equiv="refresh" content="0;url=${destination}"><p class="links"><a href="${destination}">${t('continue')}</a></p>`,
  );
}
