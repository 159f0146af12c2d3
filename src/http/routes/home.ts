/**
 * GET /: a small page for whoever opens the server's address in a browser, pointing at the
 * API's reference and, when it is on, the operator's console.
 */
import type { FastifyInstance } from 'fastify';
import { html } from '../html.js';
import { memberPage, sendMemberPage } from '../link-pages.js';
import { registerPages } from '../page-security.js';

export async function registerHomePage(app: FastifyInstance, options: { readonly console: boolean }): Promise<void> {
  const page = memberPage(
    'member-api',
    html`<p>This server answers the member-management API (version 2) and its members' pages.</p>
<ul>
<li><a href="/docs">The API's reference</a>, with a form to try each call.</li>
${options.console ? html`<li><a href="/admin/">The operator's console</a>, to find and change members.</li>` : ''}
<li>Each account's members sign in at <code>/auth/ACCOUNT/</code>.</li>
</ul>`,
  );
  await registerPages(app, { 'style-src': ["'self'"] }, (pages) => {
    pages.get('/', { schema: { hide: true } }, async (_request, reply) => sendMemberPage(reply, 200, page));
  });
}
