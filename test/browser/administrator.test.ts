/**
 * The server's administrator, in Chromium, on both engines: made on the command line once
 * (`operator administrator`), it then needs no shell. It sees every account, creates one
 * (its API key shown once, and working), and sets the account's page layout, which the member
 * pages wear at once; a layout that cannot be used is refused beside the field, the text kept.
 * An owner of an account gets neither: no layout on its Member pages, 403 on both addresses.
 *
 * Screenshots (SQLite run) go to test-output/screenshots/administrator-*.png.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startServe, type Served } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';
import { axeViolations, operatorThroughLink, post, screenshotPath, text } from '../support/browser.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const canRun = existsSync(CHROMIUM) || Boolean(process.env.CI);
const DESKTOP = { width: 1280, height: 800 };
const SLOW = { timeout: 30_000 };
const CREATE = 'form[action="/admin/accounts/new"] button[type=submit]';
const ADMIN = { email: 'admin@server.example', password: 'administrator-horse-battery' };
const OWNER = { email: 'owner@demo.example', account: 'demo', role: 'owner', password: 'owner-horse-battery-9' };

const LAYOUT = `<!doctype html>
<html lang="{{lang}}"><head>{{head}}<title>{{title}} · Orchard</title></head>
<body><header class="orchard-header">The Orchard Society</header><main><h1>{{title}}</h1>{{content}}</main>
<footer>© The Orchard Society</footer></body></html>
`;

for (const engine of ENGINES) {
  describe.skipIf(!canRun || !engineAvailable(engine))(`the server's administrator in the console [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let server: Served;
    let browser: Browser;
    let admin: Page;
    const dialogs: string[] = [];

    const shot = async (page: Page, name: string) => {
      if (engine === 'sqlite') await page.screenshot({ path: screenshotPath(`administrator-${name}`, { forDocs: false }), fullPage: true });
    };
    const submit = (page: Page, selector: string) => Promise.all([page.waitForNavigation(SLOW), page.click(selector)]);

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      env = { DATABASE_URL: database.url };
      server = await startServe(env);
      browser = await chromium.launch({ executablePath: CHROMIUM });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      server?.child.kill('SIGTERM');
      if (server) await exitOf(server.child);
      await database?.drop();
    }, 60_000);

    it('is made once on the command line, then signs in through its link and sees every account', async () => {
      const made = await runCli(['operator', 'administrator', ADMIN.email, '--json'], env);
      expect(made.code, made.stderr).toBe(0);
      const outcome = JSON.parse(made.stdout) as { administrator: boolean; link: string };
      expect(outcome.administrator).toBe(true);
      admin = await (await browser.newContext({ viewport: DESKTOP })).newPage();
      await admin.goto(`${server.url}${new URL(outcome.link).pathname}${new URL(outcome.link).search}`);
      await admin.fill('input[name=password]', ADMIN.password);
      await admin.fill('input[name=confirm]', ADMIN.password);
      await submit(admin, 'button[type=submit]');
      expect(new URL(admin.url()).pathname).toBe('/admin/');
      expect(await text(admin.locator('h1'))).toBe('Accounts');
      // demo (the store's first account) is listed though it was never given to the administrator.
      expect(await admin.locator('table a').allTextContents()).toContain('demo');
      const listed = await runCli(['operator', 'list'], env);
      expect(listed.stdout).toContain('all:administrator');
    }, 60_000);

    it('creates an account whose API key, shown once, works', async () => {
      await admin.click('a:has-text("New account")');
      await admin.waitForURL(`${server.url}/admin/accounts/new`);
      // A name that cannot be one: said beside the field, the text kept.
      await admin.fill('#name', 'the orchard');
      await submit(admin, CREATE);
      expect(await admin.locator('#name').getAttribute('aria-invalid')).toBe('true');
      expect(await text(admin.locator('#name-error'))).toBe('Use 3 to 64 letters, digits, dots, dashes or underscores (no spaces).');
      expect(await admin.inputValue('#name')).toBe('the orchard');
      await admin.fill('#name', 'demo');
      await submit(admin, CREATE);
      expect(await text(admin.locator('#name-error'))).toBe('An account with this name exists already.');

      await admin.fill('#name', 'orchard');
      await submit(admin, CREATE);
      expect(await text(admin.locator('h1'))).toBe('Account orchard created');
      const key = await text(admin.locator('code.secret'));
      await shot(admin, 'account-created');
      const created = await post(`${server.url}/api2/create/`, { user: 'orchard', api_key: key, _login: 'pip', _email: 'pip@orchard.example', _password: 'a-long-password-1' });
      expect(created).toMatchObject({ result: 'OK' });
      // The new account is the administrator's to open, as every other.
      await admin.click('a:has-text("Members")');
      expect(await text(admin.locator('h1'))).toContain('orchard');
      expect(await admin.locator('table').getByText('pip', { exact: true }).count()).toBe(1);
    }, 60_000);

    it('sets the account’s page layout, which the member pages wear at once; one that cannot be used is refused beside the field', async () => {
      await admin.goto(`${server.url}/admin/accounts/orchard/member-pages`);
      const layout = admin.locator('#layout');
      expect(await text(layout.locator('h2'))).toBe('Page layout');
      expect(await text(layout)).toContain('The built-in layout is in use.');
      // Without {{content}}, and with a script: refused, both said at once, the text as typed,
      // the page opened at the layout under a banner that says nothing was saved.
      const broken = LAYOUT.replace('{{content}}', '<script>alert(1)</script>');
      await admin.fill('#layout-text', broken);
      await submit(admin, '#layout button[type=submit]');
      expect(new URL(admin.url()).hash).toBe('#layout');
      expect(await text(admin.locator('.notice'))).toBe('Nothing was saved: the layout cannot be used, as said under it.');
      expect(await admin.locator('#layout-text').getAttribute('aria-invalid')).toBe('true');
      expect(await text(admin.locator('#layout-error'))).toBe('a layout holds no <script>: the pages run none; {{content}} must appear exactly once');
      expect(await admin.inputValue('#layout-text')).toBe(broken);
      await shot(admin, 'layout-refused');

      await admin.fill('#layout-text', LAYOUT);
      await submit(admin, '#layout button[type=submit]');
      expect(await text(admin.locator('.notice'))).toBe('The page layout is saved: the member pages wear it now.');
      expect(await text(admin.locator('#layout'))).toContain('The account’s own layout is in use.');
      await shot(admin, 'layout-saved');
      const member = await (await browser.newContext({ viewport: DESKTOP })).newPage();
      await member.goto(`${server.url}/auth/orchard/`);
      await expect.poll(() => text(member.locator('header.orchard-header')), SLOW).toBe('The Orchard Society');
      expect(await text(member.locator('h1'))).toBe('Sign in');
      await member.screenshot({ path: screenshotPath('administrator-layout-worn', { forDocs: false }) });

      // Back to the built-in layout.
      await submit(admin, '#layout button:has-text("Use the built-in layout")');
      expect(await text(admin.locator('.notice'))).toBe('The member pages wear the built-in layout again.');
      await member.reload();
      await expect.poll(() => member.locator('header.orchard-header').count(), SLOW).toBe(0);
      await member.context().close();
    }, 90_000);

    it('has no serious or critical accessibility violation (axe-core) on the administrator’s pages', async () => {
      const found: string[] = [];
      for (const path of ['/admin/', '/admin/accounts/new', '/admin/accounts/orchard/member-pages']) {
        await admin.goto(`${server.url}${path}`);
        found.push(...(await axeViolations(admin)).map((violation) => `${path}: ${violation}`));
      }
      expect(found).toEqual([]);
    }, 60_000);

    it('is the only one who may: an owner sees no layout and gets 403 for a layout or a new account', async () => {
      const context = await browser.newContext({ viewport: DESKTOP });
      const owner = await operatorThroughLink(context, { url: server.url, env }, OWNER, dialogs);
      await owner.goto(`${server.url}/admin/accounts/demo/member-pages`);
      expect(await text(owner.locator('h1'))).toBe('Member pages');
      expect(await owner.locator('#layout').count()).toBe(0);
      await owner.goto(`${server.url}/admin/`);
      expect(await owner.locator('a:has-text("New account")').count()).toBe(0);
      const refused = await owner.goto(`${server.url}/admin/accounts/new`);
      expect(refused!.status()).toBe(403);
      // A form posted from the console's own pages (its origin, its cookie), by an owner: refused.
      const form = (path: string, data: Record<string, string>) => owner.request.post(`${server.url}${path}`, { form: data, headers: { origin: server.url } });
      expect((await form('/admin/accounts/demo/member-pages/layout', { layout: '{{head}}{{content}}' })).status()).toBe(403);
      expect((await form('/admin/accounts/new', { name: 'sneaky' })).status()).toBe(403);
      // The same post by the administrator passes (the refusal above is the role's, not the origin's).
      const allowed = await admin.request.post(`${server.url}/admin/accounts/demo/member-pages/layout`, {
        form: { built_in: '1' },
        headers: { origin: server.url },
        maxRedirects: 0,
      });
      expect(allowed.status()).toBe(303);
      expect((await runCli(['account', 'list', '--json'], env)).stdout).not.toContain('sneaky');
      await context.close();
      expect(dialogs).toEqual([]);
    }, 60_000);
  });
}
