/**
 * The console's frame: every page's layout (its header, its account's navigation by role, the
 * notice a change left), and the small pieces every view uses. Views are functions of typed
 * props that return HTML through `html`, which escapes every value (see docs/architecture.md,
 * "The web front ends"); no view has a script or a style attribute (the Content-Security-Policy
 * allows neither): the pages work with JavaScript off.
 */
import { roleOn, type Operator, type Role } from '../../operators/operator.js';
import { html, type Html } from '../../http/html.js';
import { stylesheet } from '../../http/stylesheets.js';
import { membersPath } from '../paths.js';
import { consoleTranslator, type ConsoleKey } from '../../messages/catalog.js';

/** The console's one stylesheet (console.css, beside the console's modules in src/ and in dist/), named by its content's hash. */
export const CONSOLE_STYLESHEET = stylesheet(new URL('../console.css', import.meta.url), '/admin', 'console');

/** The console's words, from the catalog (src/messages/console.ts): the console speaks English. */
export const t = consoleTranslator('en');

export interface Chrome {
  readonly operator?: Operator;
  /** The account the page is about, for the navigation. */
  readonly account?: string;
  readonly notice?: { readonly kind: 'ok' | 'error'; readonly text: string };
}

const STATUS_NAMES: Record<string, ConsoleKey> = { A: 'statusA', S: 'statusS', D: 'statusD' };
export const when = (instant: number | null | undefined) => (instant ? new Date(instant).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '—');
export const statusBadge = (status: string) => html`<span class="badge ${status}">${STATUS_NAMES[status] ? t(STATUS_NAMES[status]) : status}</span>`;
export const option = (value: string, label: string, current: string | undefined) =>
  html`<option value="${value}"${current === value ? html` selected` : ''}>${label}</option>`;

/** The title of an account's page: "Members of garden" (its navigation heading, then the account). */
export const accountTitle = (heading: ConsoleKey, account: string) => t('pageOfAccount', { page: t(heading), account });
/** The link back to the account's members, above a page of its own. */
export const backToMembers = (account: string) => html`<p><a href="${membersPath(account)}">← ${accountTitle('navMembers', account)}</a></p>`;

/** An account's pages, by the least role that opens them; the page whose title starts with its heading is the current one. */
const ACCOUNT_PAGES: ReadonlyArray<{ heading: ConsoleKey; path: string; role: Role }> = [
  { heading: 'navOverview', path: 'overview', role: 'viewer' },
  { heading: 'navMembers', path: 'members', role: 'viewer' },
  { heading: 'navRegistrations', path: 'registrations', role: 'viewer' },
  { heading: 'navMemberPages', path: 'member-pages', role: 'owner' },
  { heading: 'navSettings', path: 'settings', role: 'owner' },
  { heading: 'navMail', path: 'mail', role: 'owner' },
  { heading: 'navKeys', path: 'keys', role: 'owner' },
  { heading: 'navOperators', path: 'operators', role: 'owner' },
  { heading: 'navWebhooks', path: 'webhooks', role: 'owner' },
  { heading: 'navPlans', path: 'plans', role: 'owner' },
];
const RANK: Record<Role, number> = { viewer: 0, editor: 1, owner: 2 };

function accountNav(operator: Operator, account: string, title: string): Html {
  const role = roleOn(operator, account);
  if (!role) return html``;
  const pages = ACCOUNT_PAGES.filter((page) => RANK[role] >= RANK[page.role]);
  return html`<nav class="account-nav" aria-label="${account}">${pages.map(
    (page) =>
      html`<a href="/admin/accounts/${encodeURIComponent(account)}/${page.path}" class="${title.startsWith(accountTitle(page.heading, account)) ? 'current' : ''}">${t(page.heading)}</a>`,
  )}</nav>`;
}

/** The accounts the top bar links to: the operator's own, and the one an administrator has open. */
function topAccounts(operator: Operator, account: string | undefined): string[] {
  const own = operator.accounts.map((grant) => grant.account);
  return operator.administrator && account !== undefined && !own.includes(account) ? [...own, account] : own;
}

export function layout(title: string, chrome: Chrome, body: Html): string {
  const { operator, account } = chrome;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${t('titleOf', { title })}</title><link rel="stylesheet" href="${CONSOLE_STYLESHEET.path}"></head>
<body>
<a class="skip" href="#content">${t('skipToContent')}</a>
<header class="top"><a class="brand" href="/admin/">${t('consoleName')}</a>
<nav>${operator ? topAccounts(operator, account).map((name) => html`<a href="${membersPath(name)}" class="${name === account ? 'current' : ''}">${name}</a>`) : ''}</nav>
${
  operator
    ? html`<div class="who"><span>${operator.email}</span><a href="/admin/two-step">${t(operator.twoStep ? 'twoStepSignInOn' : 'twoStepSignIn')}</a>
<form method="post" action="/admin/sign-out"><button type="submit">${t('signOut')}</button></form>
<form method="post" action="/admin/sign-out-everywhere"><button type="submit">${t('signOutEverywhere')}</button></form></div>`
    : ''
}
</header>
<main>${operator && account ? accountNav(operator, account, title) : ''}<div id="content" tabindex="-1">${chrome.notice ? html`<div class="notice ${chrome.notice.kind}" role="status">${chrome.notice.text}</div>` : ''}${body}</div></main>
</body></html>
`.value;
}

export function messagePage(title: string, text: string, chrome: Chrome, link?: { href: string; text: string }): string {
  return layout(
    title,
    chrome,
    html`<div class="narrow card"><h1>${title}</h1><p>${text}</p>${link ? html`<p><a href="${link.href}">${link.text}</a></p>` : ''}</div>`,
  );
}
