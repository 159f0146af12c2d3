/**
 * What sites built on the hosted original do in a browser, in a real Chromium on both engines,
 * over plain http on host names (mapped to 127.0.0.1 with --host-resolver-rules, as an
 * intranet's are): Chromium sends no Fetch Metadata there, so the pages' own forms are known by
 * their Origin (kept by the pages' referrer policy) or their token.
 *
 * - the pages' own sign-in and registration forms work on http://members.intranet;
 * - a site's sign-up page with the original's pasted registration form (`action=reg2`) and
 *   `/regformcheck.js`: two different passwords are caught before anything is sent, then the
 *   member is registered and signed in;
 * - the site shows the sign-in page in an `<iframe>` (an allowed origin), another site cannot;
 * - the site's log-out button (`window.open(…?action=logout)`) signs the member out.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startServe, type Served } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';
import { post, text } from '../support/browser.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const canRun = existsSync(CHROMIUM) || Boolean(process.env.CI);
const SLOW = { timeout: 30_000 };

for (const engine of ENGINES) {
  describe.skipIf(!canRun || !engineAvailable(engine))(`pages of sites built on the original, in a browser [${engine}]`, () => {
    let database: TestDatabase;
    let server: Served;
    let members: string;
    let site: Server;
    let siteUrl: string;
    let browser: Browser;
    let key: string;
    /** What the site's pages hold, by path. */
    const sitePages = new Map<string, string>();

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      server = await startServe({ DATABASE_URL: database.url });
      key = server.demoKey();
      const port = new URL(server.url).port;
      members = `http://members.intranet:${port}`;
      site = createServer((request, response) => {
        const page = sitePages.get(new URL(request.url ?? '/', 'http://x').pathname);
        response.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' }).end(page ?? 'not here');
      });
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      siteUrl = `http://www.club.intranet:${(site.address() as AddressInfo).port}`;
      const set = await runCli(
        ['account', 'set', 'demo', '--registration', 'open', '--return-origins', siteUrl, '--registration-fields', 'first-name:text:First name'],
        { DATABASE_URL: database.url },
      );
      expect(set.code, set.stderr).toBe(0);
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--host-resolver-rules=MAP members.intranet 127.0.0.1, MAP www.club.intranet 127.0.0.1, MAP other.intranet 127.0.0.1'],
      });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      server.child.kill('SIGTERM');
      await exitOf(server.child);
      await new Promise((resolve) => site.close(resolve));
      await database.drop();
    });

    it('takes the pages’ own sign-in and registration forms over plain http on a host name', SLOW, async () => {
      await post(`${server.url}/api2/create/`, { user: 'demo', api_key: key, _login: 'iris', _email: 'iris@example.com', _password: 'a-long-password-1' });
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${members}/auth/demo/`);
      await page.fill('input[name=login]', 'iris');
      await page.fill('input[name=password]', 'a-long-password-1');
      await Promise.all([page.waitForNavigation(SLOW), page.click('button[type=submit]')]);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Your profile');
      await context.clearCookies();
      await page.goto(`${members}/auth/demo/?action=reg`);
      await page.fill('input[name=login]', 'jonas');
      await page.fill('input[name=email]', 'jonas@example.com');
      await page.fill('input[name=password]', 'a-long-password-2');
      await page.fill('input[name=confirm]', 'a-long-password-2');
      await Promise.all([page.waitForNavigation(SLOW), page.click('button[type=submit]')]);
      expect(await page.content()).not.toContain('Refused');
      expect(await post(`${server.url}/api2/login/`, { user: 'demo', login: 'jonas', password: 'a-long-password-2' })).toMatchObject({ result: 'OK' });
      await context.close();
    });

    it('registers through the original’s form pasted on the site’s page, with its /regformcheck.js', SLOW, async () => {
      sitePages.set(
        '/join',
        `<!doctype html><html><head><script src="${members}/regformcheck.js"></script></head><body>
<form method="post" action="${members}/auth/demo/"><input type="hidden" name="action" value="reg2"><input type="hidden" name="regcode" value="">
<input name="_login"><input name="_email"><input name="_password" type="password"><input name="_password2" type="password"><input name="_first-name">
<button type="submit">Join</button></form></body></html>`,
      );
      const context = await browser.newContext();
      const page = await context.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(`${siteUrl}/join`);
      await page.fill('input[name=_login]', 'kira');
      await page.fill('input[name=_email]', 'kira@example.com');
      await page.fill('input[name=_password]', 'a-long-password-3');
      await page.fill('input[name=_password2]', 'another-password-3');
      await page.fill('input[name="_first-name"]', 'Kira');
      await page.click('button[type=submit]');
      // The script held the form: nothing sent, and said why.
      await expect.poll(() => dialogs, SLOW).toEqual(['The two passwords are not the same.']);
      expect(new URL(page.url()).pathname).toBe('/join');
      await page.fill('input[name=_password2]', 'a-long-password-3');
      await Promise.all([page.waitForNavigation(SLOW), page.click('button[type=submit]')]);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Your profile');
      expect(await page.locator('input[name=f_first-name]').inputValue()).toBe('Kira');
      await context.close();
    });

    it('lets the allowed site show the sign-in page in a frame, and no other site', SLOW, async () => {
      const framing = `<!doctype html><html><body><iframe name="signin" src="${members}/auth/demo/" width="420" height="600"></iframe></body></html>`;
      sitePages.set('/frame', framing);
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${siteUrl}/frame`);
      // The frame as its element holds it (a refused frame's error page may have lost its name).
      const frameOf = async () => (await (await page.waitForSelector('iframe[name=signin]')).contentFrame())!;
      const frame = await frameOf();
      await expect.poll(() => frame.locator('input[name=password]').count(), SLOW).toBe(1);
      // The same page on another site (another origin: its port is the site's, its host another name).
      await page.goto(`${siteUrl.replace('www.club.intranet', 'other.intranet')}/frame`);
      const blocked = await frameOf();
      await page.waitForTimeout(500);
      expect(await blocked.locator('input[name=password]').count()).toBe(0);
      await context.close();
    });

    it('signs out at once when the site’s log-out button opens the original’s link', SLOW, async () => {
      sitePages.set('/portal', `<!doctype html><html><body><a id="out" href="${members}/auth/demo/?action=logout" target="_blank">Log out</a></body></html>`);
      await post(`${server.url}/api2/create/`, { user: 'demo', api_key: key, _login: 'lena', _email: 'lena@example.com', _password: 'a-long-password-4' });
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(`${members}/auth/demo/`);
      await page.fill('input[name=login]', 'lena');
      await page.fill('input[name=password]', 'a-long-password-4');
      await Promise.all([page.waitForNavigation(SLOW), page.click('button[type=submit]')]);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Your profile');
      await page.goto(`${siteUrl}/portal`);
      const [opened] = await Promise.all([context.waitForEvent('page'), page.click('#out')]);
      await opened.waitForLoadState();
      await expect.poll(() => text(opened.locator('.notice')), SLOW).toBe('You are signed out.');
      await page.goto(`${members}/auth/demo/profile`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Sign in');
      await context.close();
    });
  });
}
