/**
 * The console's export and import in a real Chromium, on both engines: an editor exports a
 * filter of one account (the columns its page shows), adds a row that cannot be imported, and
 * imports the file into another account with a mapping of its own and a dry run, whose
 * rejects it downloads; new members without a password get the reset mail. A larger import's
 * page reloads itself (no script) until the run ends. Every new page is shot at a desktop's
 * width and at a phone's (390 px), where nothing is wider than the screen.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startServe, type Served } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';
import { operatorThroughLink, post, text, screenshotPath } from '../support/browser.js';
import { startSmtp, type MailCatcher } from '../support/smtp.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const canRun = existsSync(CHROMIUM) || Boolean(process.env.CI);
const PASSWORD = 'console-horse-battery';
const EDITOR = 'porter@example.com';
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

for (const engine of ENGINES) {
  describe.skipIf(!canRun || !engineAvailable(engine))(`the console's export and import [${engine}]`, () => {
    let database: TestDatabase;
    let server: Served;
    let smtp: MailCatcher;
    let env: Record<string, string>;
    let browser: Browser;
    let key: string;
    const files = mkdtempSync(join(tmpdir(), 'console-transfer-'));
    const dialogs: string[] = [];

    /** The page at a desktop's width, then at a phone's: nothing wider than the screen; shot for the docs (SQLite's run). */
    async function shots(page: Page, name: string): Promise<void> {
      if (engine === 'sqlite') await page.screenshot({ path: screenshotPath(`console-${name}`), fullPage: true });
      await page.setViewportSize(PHONE);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${name} at 390 px`).toBeLessThanOrEqual(PHONE.width);
      if (engine === 'sqlite') await page.screenshot({ path: screenshotPath(`console-${name}-phone`) });
      await page.setViewportSize(DESKTOP);
    }

    /** Makes the operator (an editor of both accounts) and sets its password through its link, which signs it in. */
    async function signIn(context: BrowserContext): Promise<Page> {
      const page = await operatorThroughLink(
        context,
        { url: server.url, env },
        { email: EDITOR, account: 'demo', role: 'editor', password: PASSWORD },
        dialogs,
      );
      await expect.poll(() => text(page.locator('h1'))).toBe('Members of demo');
      // Its password set, a second account is a role more (a new link would end the first).
      expect((await runCli(['operator', 'add', EDITOR, '--account', 'target', '--role', 'editor'], env)).code).toBe(0);
      return page;
    }

    /** Clicks what starts a download, and answers the file's name and text. */
    async function download(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
      const [file] = await Promise.all([page.waitForEvent('download'), click()]);
      const path = join(files, file.suggestedFilename());
      await file.saveAs(path);
      return { name: file.suggestedFilename(), text: readFileSync(path, 'utf8') };
    }

    const create = (account: string, apiKey: string, login: string, fields: Record<string, string>) =>
      post(`${server.url}/api2/create/`, {
        user: account,
        api_key: apiKey,
        _login: login,
        _email: `${login}@example.com`,
        _password: 'member-password-1',
        ...fields,
      });

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      smtp = await startSmtp();
      env = { DATABASE_URL: database.url };
      server = await startServe(env);
      key = server.demoKey();
      for (let i = 1; i <= 12; i++) {
        const created = await create('demo', key, `club${String(i).padStart(2, '0')}`, { city: i % 2 ? 'Oslo' : 'Rome', plan: 'gold' });
        expect(created.result).toBe('OK');
      }
      const target = await runCli(['account', 'create', 'target', '--json'], env);
      expect(target.code, target.stderr).toBe(0);
      const targetKey = (JSON.parse(target.stdout) as { api_key: string }).api_key;
      expect((await runCli(['account', 'set', 'target', '--smtp-url', smtp.url, '--mail-from', 'Target <no-reply@target.example>'], env)).code).toBe(0);
      // One of the members exported is in the target account already, with its own password.
      expect((await create('target', targetKey, 'club01', { city: 'Bergen' })).result).toBe('OK');
      browser = await chromium.launch({ executablePath: CHROMIUM });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      server.child.kill('SIGTERM');
      await exitOf(server.child);
      await smtp?.close();
      await database.drop();
    });

    it('exports a filter from one account and imports it into another with a mapping and a dry run, a reject downloaded', { timeout: 180_000 }, async () => {
      const context = await browser.newContext({ viewport: DESKTOP });
      const page = await signIn(context);

      // The filter: members in Oslo (the search box finds profile values), the city as a column.
      await page.goto(`${server.url}/admin/accounts/demo/members?q=Oslo&columns=city`);
      await expect.poll(() => text(page.locator('.count'))).toBe('6 members');
      // Its two buttons more still fit a phone.
      await page.setViewportSize(PHONE);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
      await page.setViewportSize(DESKTOP);
      await page.click('a.button:has-text("Export")');
      await expect.poll(() => text(page.locator('h1'))).toBe('Export members');
      expect(await text(page.locator('.card p').first())).toContain('The 6 members this filter finds');
      expect(await text(page.locator('.card code'))).toBe('id, login, email, status, reg_time, last_login_time, city');
      await shots(page, 'export');
      const exported = await download(page, () => page.click('button:has-text("Download")'));
      expect(exported.name).toMatch(/^demo-members-\d{4}-\d{2}-\d{2}\.csv$/);
      const lines = exported.text.trim().split('\n');
      expect(lines[0]).toBe('id,login,email,status,reg_time,last_login_time,city');
      expect(lines.slice(1).map((line) => line.split(',')[1])).toEqual(['club01', 'club03', 'club05', 'club07', 'club09', 'club11']);
      expect(exported.text).not.toContain('gold');

      // A row that cannot be imported, added by hand.
      const file = join(files, 'oslo.csv');
      writeFileSync(file, `${exported.text}999,broken,not-an-address,A,,,Oslo\n`);

      // Into the other account: upload, the columns mapped.
      await page.goto(`${server.url}/admin/accounts/target/members`);
      await page.click('a.button:has-text("Import")');
      await expect.poll(() => text(page.locator('h1'))).toBe('Import members');
      await shots(page, 'import');
      await page.setInputFiles('input[type=file]', file);
      await page.click('button:has-text("Upload")');
      await expect.poll(() => text(page.locator('h1'))).toBe('Import oslo.csv');
      expect(await text(page.locator('.notice.ok'))).toBe('Uploaded: check the columns’ fields, then make a dry run.');
      // Guessed from the header.
      expect(await page.locator('select[name="map:1"]').inputValue()).toBe('login');
      expect(await page.locator('select[name="map:2"]').inputValue()).toBe('email');
      expect(await page.locator('select[name="map:6"]').inputValue()).toBe('profile:city');
      await shots(page, 'import-mapping');
      expect(await page.locator('select[name="map:0"]').inputValue()).toBe('');
      // The mapping: the source's status and times are left out; members set their password by e-mail.
      for (const column of [3, 4, 5]) await page.selectOption(`select[name="map:${column}"]`, '');
      await page.check('input[name=passwords][value=mail]');
      await page.click('button:has-text("Dry run")');
      await expect.poll(() => text(page.locator('h2').first()), { timeout: 60_000 }).toBe('Dry run: nothing was written');
      const row = (name: string) => text(page.locator(`table.kv tr:has(th:text-is("${name}")) td`));
      expect(await row('New members (would be made)')).toBe('5');
      expect(await row('Members updated (would be)')).toBe('1');
      expect(await row('Rows rejected')).toBe('1');
      expect(await row('New members without a password (would be mailed a reset link)')).toBe('5');
      expect(await text(page.locator('table:not(.kv) tbody tr'))).toBe('8invalid email');
      // Nothing written yet.
      expect((await post(`${server.url}/api2/login/`, { user: 'target', login: 'club03', password: 'member-password-1' })).result).toBe('FAIL');
      await shots(page, 'import-dry-run');
      const rejects = await download(page, () => page.click('a:has-text("Download the rejects")'));
      expect(rejects.name).toBe('oslo.rejected.csv');
      expect(rejects.text.split('\n')[0]).toBe('id,login,email,status,reg_time,last_login_time,city,_line,_reason,_text');
      expect(rejects.text).toContain('999,broken,not-an-address,A,,,Oslo,8,invalid email');

      await page.click('button:has-text("Import 6 members")');
      await expect.poll(() => text(page.locator('h2').first()), { timeout: 60_000 }).toBe('Imported');
      expect(await row('New members')).toBe('5');
      expect(await row('Members updated')).toBe('1');
      expect(await row('Mailed a reset link (no password)')).toBe('5');
      await shots(page, 'import-done');
      // In the target account with the mapping's fields; the one there already keeps its password.
      await page.goto(`${server.url}/admin/accounts/target/members?columns=city`);
      await expect.poll(() => text(page.locator('.count'))).toBe('6 members');
      expect(await text(page.locator('tr:has(a:text-is("club03")) td').last())).toBe('Oslo');
      expect((await post(`${server.url}/api2/login/`, { user: 'target', login: 'club01', password: 'member-password-1' })).result).toBe('OK');
      // The new members' reset mails, each with its link.
      const mails = await smtp.waitFor(5, 30_000);
      expect(mails.map((mail) => mail.to[0]).sort()).toEqual(['club03', 'club05', 'club07', 'club09', 'club11'].map((login) => `${login}@example.com`));
      expect(mails[0]!.text).toContain('/api2/reset-password/?account=');
      expect(dialogs).toEqual([]);
      await context.close();
    });

    it('shows a long import’s progress on a page that reloads itself until the run ends', { timeout: 240_000 }, async () => {
      const context = await browser.newContext({ viewport: DESKTOP });
      const page = await context.newPage();
      await page.goto(`${server.url}/admin/sign-in`);
      await page.fill('input[name=email]', EDITOR);
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]');
      await expect.poll(() => text(page.locator('h1'))).toBe('Your accounts');
      // Plain passwords: each is hashed with argon2id, the slow part of an import (on every
      // core at once: enough of them that the run lasts a few seconds on any machine).
      const count = 200 * availableParallelism();
      const rows = Array.from({ length: count }, (_, i) =>
        JSON.stringify({ login: `bulk${i}`, email: `bulk${i}@example.com`, password: `bulk-password-${i}` }),
      );
      const file = join(files, 'many.jsonl');
      writeFileSync(file, `${rows.join('\n')}\n`);
      await page.goto(`${server.url}/admin/accounts/demo/members/import`);
      await page.setInputFiles('input[type=file]', file);
      await page.click('button:has-text("Upload")');
      await expect.poll(() => text(page.locator('h1'))).toBe('Import many.jsonl');
      await page.click('button:has-text("Dry run")');
      await expect.poll(() => text(page.locator('h2').first()), { timeout: 60_000 }).toBe('Dry run: nothing was written');
      await page.click(`button:has-text("Import ${count.toLocaleString('en')} members")`);
      // Part of the way (the passwords of its batch being hashed), as the page reloads.
      await expect.poll(() => text(page.locator('h2').first()), { timeout: 60_000, interval: 200 }).toMatch(/^Importing: [1-9]\d?%$/);
      await shots(page, 'import-progress');
      // No script: the page reloads itself (meta refresh) until the run ends.
      await expect.poll(() => text(page.locator('h2').first()), { timeout: 180_000, interval: 500 }).toBe('Imported');
      expect(await text(page.locator('table.kv tr:has(th:text-is("New members")) td'))).toBe(count.toLocaleString('en'));
      const last = count - 1;
      expect((await post(`${server.url}/api2/login/`, { user: 'demo', login: `bulk${last}`, password: `bulk-password-${last}` })).result).toBe('OK');
      await context.close();
    });
  });
}
