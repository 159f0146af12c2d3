/**
 * The member pages' frame: the layout in the account's look (its name, logo and accent colour),
 * the page's policy, and the small pieces every page uses. Views are functions of typed props
 * returning escaped templates (html.ts), no script. The stylesheet is
 * pages.css; only the account's accent is inline, allowed by its hash: policy() gives the
 * Content-Security-Policy that goes with a page.
 */
import { createHash } from 'node:crypto';
import type { Account } from '../../accounts/account.js';
import { html, Html } from '../../http/html.js';
import type { PageTemplate, PageTemplateVariable } from '../../accounts/page-template.js';
import type { Language, MessageKey, Translate } from '../../messages/catalog.js';
import { PAGES_STYLESHEET } from '../stylesheet.js';

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
export function formToken(chrome: Pick<Chrome, 'formToken'>): Html {
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
export function input(
  id: string,
  label: string,
  options: { type?: string; value?: string; autocomplete?: string; required?: boolean; error?: string; hint?: string; autofocus?: boolean },
): Html {
  const described = [options.hint ? `${id}-hint` : '', options.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return html`<label for="${id}">${label}</label>
<input id="${id}" name="${id}" type="${options.type ?? 'text'}" value="${options.value ?? ''}"${options.autocomplete ? html` autocomplete="${options.autocomplete}"` : ''}${options.required ? html` required` : ''}${options.autofocus ? html` autofocus` : ''}${options.error ? html` aria-invalid="true"` : ''}${described ? html` aria-describedby="${described}"` : ''}>
${options.hint ? html`<p class="hint" id="${id}-hint">${options.hint}</p>` : ''}${options.error ? html`<p class="error" id="${id}-error">${options.error}</p>` : ''}`;
}

export const alert = (message: string | undefined) => (message ? html`<p class="alert" role="alert">${message}</p>` : '');
export const notice = (message: string | undefined) => (message ? html`<p class="notice" role="status">${message}</p>` : '');

/** A page that says one thing, with a way on. */
export function messagePage(chrome: Chrome, title: MessageKey, text: MessageKey, link?: { href: string; label: MessageKey }): string {
  const { t } = chrome;
  return layout(chrome, t(title), html`<p>${t(text)}</p>${link ? html`<p class="links"><a href="${link.href}">${t(link.label)}</a></p>` : ''}`);
}
