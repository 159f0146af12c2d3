/**
 * The member's own flow in a real Chromium, on both engines: a reset link mailed by the
 * server (a real SMTP server started here) is opened, the page refuses a short password and
 * says why, then sets a new one and sends the browser to the account's ok URL; the member
 * logs in with it, and a session from before the reset is over. The used link then says so.
 * Screenshots of the page go to test-output/screenshots/ (`npm run screenshots`: docs/images/, which docs/api.md shows under /api2/reset/).
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startServe, type Served } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';
import { startSmtp, type MailCatcher } from '../support/smtp.js';
import { post, screenshotPath } from '../support/browser.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const canRun = existsSync(CHROMIUM) || Boolean(process.env.CI);

for (const engine of ENGINES) {
  describe.skipIf(!canRun || !engineAvailable(engine))(`the password reset page [${engine}]`, () => {
    let database: TestDatabase;
    let server: Served;
    let smtp: MailCatcher;
    let site: Server;
    let siteUrl: string;
    let browser: Browser;

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      smtp = await startSmtp();
      // The integrator's site, where the ok URL leads.
      site = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Welcome back</h1>'));
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/welcome`;
      const env = { DATABASE_URL: database.url };
      server = await startServe(env);
      const set = await runCli(
        ['account', 'set', 'demo', '--smtp-url', smtp.url, '--mail-from', 'Site <no-reply@site.example>', '--ok-url', siteUrl, '--min-password-length', '10'],
        env,
      );
      expect(set.code, set.stderr).toBe(0);
      browser = await chromium.launch({ executablePath: CHROMIUM });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
      server?.child.kill('SIGTERM');
      if (server) await exitOf(server.child);
      await smtp?.close();
      await new Promise((resolve) => site?.close(resolve));
      await database?.drop();
    });

    it('sets a new password from the mailed link, in the browser', async () => {
      const key = server.demoKey();
      const api = (path: string, params: Record<string, string>) => post(`${server.url}/api2/${path}/`, { user: 'demo', ...params });
      expect(await api('create', { api_key: key, _login: 'maria', _email: 'maria@example.com', _password: 'old-password-1' })).toMatchObject({ result: 'OK' });
      const before = (await api('login', { login: 'maria', password: 'old-password-1' })).session as string;
      expect(await api('reset', { api_key: key, find_member_login: 'maria', send_mail: '1' })).toMatchObject({ result: 'OK' });
      const [mail] = await smtp.waitFor(1);
      const link = /http\S+\/api2\/reset-password\/\?account=demo&token=\S+/.exec(mail!.text)![0];

      const page = await browser.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      const opened = await page.goto(link);
      expect(opened!.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toBe('Choose a new password');
      expect(await page.locator('strong').textContent()).toBe('maria');
      expect(await page.locator('script').count()).toBe(0);
      if (engine === 'sqlite') await page.screenshot({ path: screenshotPath('reset-page'), fullPage: true });

      await page.fill('input[name=password]', 'short-one');
      await page.fill('input[name=confirm]', 'short-one');
      await page.click('button[type=submit]');
      await expect.poll(() => page.locator('[role=alert]').textContent()).toContain('too short: at least 10 characters');
      if (engine === 'sqlite') await page.screenshot({ path: screenshotPath('reset-page-refused'), fullPage: true });

      await page.fill('input[name=password]', 'brand-new-password');
      await page.fill('input[name=confirm]', 'brand-new-password');
      await page.click('button[type=submit]');
      await page.waitForURL(siteUrl);
      expect(await page.locator('h1').textContent()).toBe('Welcome back');

      expect(await api('login', { login: 'maria', password: 'brand-new-password' })).toMatchObject({ result: 'OK' });
      expect(await api('login', { login: 'maria', password: 'old-password-1' })).toMatchObject({ result: 'FAIL' });
      expect(await api('session', { session: before })).toEqual({ result: 'FAIL', message: 'session not found' });

      const again = await page.goto(link);
      expect(again!.status()).toBe(410);
      expect(await page.locator('h1').textContent()).toBe('Link already used');
      if (engine === 'sqlite') await page.screenshot({ path: screenshotPath('reset-page-used'), fullPage: true });
      expect(dialogs).toEqual([]);
      await page.close();
    }, 60_000);
  });
}
