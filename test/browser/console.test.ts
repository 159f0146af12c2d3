/**
 * The operator's console in a real Chromium, on both engines: an operator set up by the
 * command line sets its password by its link, signs in, searches, opens a member, edits it,
 * unlocks it, suspends and restores it, creates one, and signs out. Hostile member data
 * renders as text (a dialog fails the test); a form posted from another site and a forged
 * fetch change nothing; a viewer is refused a change, a viewer and an editor the owner's pages; an operator of another account gets
 * nothing by URL. The walls an operator once hit are walked again: a reload after a change, a
 * form's address bookmarked, the account's addresses, a member's sessions, verification and reset
 * mail (a real SMTP server), a bulk change in each member's history, the Deleted on request. Screenshots of each page go to test-output/screenshots/ (`npm run screenshots`: to docs/images/, which docs/console.md shows).
 */
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { generateSync } from 'otplib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startServe, type Served } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';
import { operatorThroughLink, text, post, screenshotPath } from '../support/browser.js';
import { startReceiver } from '../support/receiver.js';
import { startSmtp } from '../support/smtp.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const canRun = existsSync(CHROMIUM) || Boolean(process.env.CI);
const PASSWORD = 'console-horse-battery';
const HOSTILE_LOGIN = '"><script>alert(1)</script>';
// What the API's one-plain-address rule lets through that a page could still misread: quotes
// closing an attribute, a handler, an entity.
const HOSTILE_EMAIL = "x'/onmouseover='alert`2`'&amp@example.com";
const HOSTILE_PROFILE = '<img src=x onerror=alert(3)>';

for (const engine of ENGINES) {
  describe.skipIf(!canRun || !engineAvailable(engine))(`the operator's console [${engine}]`, () => {
    let database: TestDatabase;
    let server: Served;
    let env: Record<string, string>;
    let browser: Browser;
    let key: string;
    let alice: string;
    let hostile: string;
    const dialogs: string[] = [];
    // Screenshots from the SQLite run only: one set (screenshotPath).
    /**
     * Screenshots for the docs (once, on SQLite): the whole page, then what a phone's screen
     * (390 px) shows of the same page, which must be no wider than the screen (a wide list
     * scrolls inside its card).
     */
    const shoot = async (page: Page, name: string) => {
      if (engine !== 'sqlite') return;
      await page.screenshot({ path: screenshotPath(`console-${name}`), fullPage: true });
      const desktop = page.viewportSize()!;
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        expect(await page.evaluate<number>('document.documentElement.scrollWidth'), `${name} at a phone's width`).toBeLessThanOrEqual(390);
        await page.screenshot({ path: screenshotPath(`console-${name}-phone`) });
      } finally {
        await page.setViewportSize(desktop);
      }
    };

    /** Makes an operator and sets its password through its link in `context`, which signs it in. */
    const operator = (context: BrowserContext, email: string, account: string, role: string): Promise<Page> =>
      operatorThroughLink(context, { url: server.url, env }, { email, account, role, password: PASSWORD }, dialogs);

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      // The webhook's receiver is this test's, on loopback.
      env = { DATABASE_URL: database.url, WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' };
      server = await startServe(env);
      key = server.demoKey();
      const created = await post(`${server.url}/api2/create/`, {
        user: 'demo',
        api_key: key,
        _login: 'alice',
        _email: 'alice@example.com',
        _password: 'alice-password-1',
        city: 'Oslo',
        plan: 'gold',
      });
      alice = created.id;
      hostile = (
        await post(`${server.url}/api2/create/`, {
          user: 'demo',
          api_key: key,
          _login: HOSTILE_LOGIN,
          _email: HOSTILE_EMAIL,
          _password: 'hostile-password',
          city: HOSTILE_PROFILE,
        })
      ).id;
      for (let i = 0; i < 60; i++)
        await post(`${server.url}/api2/create/`, {
          user: 'demo',
          api_key: key,
          _login: `member${String(i).padStart(2, '0')}`,
          _email: `m${i}@example.com`,
          _password: 'member-password-1',
          city: i % 2 ? 'Paris' : 'Rome',
        });
      expect((await runCli(['account', 'create', 'other', '--json'], env)).code).toBe(0);
      expect((await runCli(['account', 'set', 'demo', '--lockout-threshold', '3'], env)).code).toBe(0);
      browser = await chromium.launch({ executablePath: CHROMIUM });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      server.child.kill('SIGTERM');
      await exitOf(server.child);
      await database.drop();
    });

    it('signs in, searches, opens, edits, unlocks, suspends and restores a member, creates one, signs out', { timeout: 120_000 }, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await operator(context, 'editor@example.com', 'demo', 'editor');
      await expect.poll(() => text(page.locator('h1'))).toBe('Members of demo');
      // Newest first, with the page's position; keyset paging to the next page, then the first.
      await expect.poll(() => text(page.locator('.count'))).toBe('1–50 of 62');
      await shoot(page, 'members');
      const firstLogins = () => page.locator('tbody tr td:nth-child(2)').allInnerTexts();
      await page.click('a:has-text("Next")');
      await expect.poll(() => page.locator('tbody tr').count()).toBe(12);
      await expect.poll(() => text(page.locator('.count'))).toBe('51–62 of 62');
      expect((await firstLogins()).at(-1)).toBe('alice');
      await page.click('a:has-text("First")');
      await expect.poll(() => page.locator('tbody tr').count()).toBe(50);
      // Sorted by a column either way: its heading, then again.
      await page.click('th a:has-text("Login")');
      await expect.poll(() => page.locator('th[aria-sort=ascending]').textContent()).toContain('Login');
      expect((await firstLogins()).slice(0, 4)).toEqual([HOSTILE_LOGIN, 'alice', 'member00', 'member01']);
      await page.click('th a:has-text("Login")');
      await expect.poll(() => page.locator('th[aria-sort=descending]').textContent()).toContain('Login');
      expect((await firstLogins()).slice(0, 2)).toEqual(['member59', 'member58']);
      // One search box: a login substring, an id, a profile value; a profile field as a column
      // under More filters.
      await page.fill('input[name=q]', 'alic');
      await page.click('summary:has-text("More filters")');
      await page.fill('input[name=columns]', 'city,plan');
      await page.click('button:has-text("Search")');
      await expect.poll(() => text(page.locator('.count'))).toBe('1 member');
      await expect.poll(() => text(page.locator('tbody'))).toContain('Oslo');
      await shoot(page, 'search');
      // An id: that member, beside those whose login, e-mail or profile holds the digits.
      await page.fill('input[name=q]', String(alice));
      await page.click('button:has-text("Search")');
      await expect.poll(() => firstLogins()).toContain('alice');
      await page.fill('input[name=q]', 'oslo');
      await page.click('button:has-text("Search")');
      await expect.poll(() => firstLogins()).toContain('alice');
      await page.fill('input[name=q]', 'alic');
      await page.click('button:has-text("Search")');
      await page.click('a:has-text("alice")');
      await expect.poll(() => text(page.locator('h1'))).toBe('alice');
      // Edit: a built-in field and a profile field.
      await page.fill('input[name="profile:city"]', 'Bergen');
      await page.fill('input[name=email]', 'alice@example.org');
      await page.click('button:has-text("Save")');
      await expect.poll(() => text(page.locator('.notice'))).toBe('Saved: alice’s changes are stored.');
      // History with values, old → new.
      await expect
        .poll(() => text(page.locator('.card', { hasText: 'History' })))
        .toContain('email: alice@example.com → alice@example.org; city: Oslo → Bergen');
      await expect.poll(() => text(page.locator('.card', { hasText: 'History' }))).toContain('editor@example.com');
      // Locked by failed logins, then unlocked.
      for (let i = 0; i < 3; i++)
        await post(`${server.url}/api2/login/`, { user: 'demo', api_key: key, login: 'alice', password: 'wrong-password', IP: '192.0.2.7' });
      await page.reload();
      await expect.poll(() => text(page.locator('.card', { hasText: 'Status' }))).toContain('Locked until');
      await shoot(page, 'member');
      await page.click('button:has-text("Unlock")');
      await expect.poll(() => text(page.locator('.notice'))).toBe('alice is unlocked: its failed sign-ins are forgotten.');
      expect((await post(`${server.url}/api2/login/`, { user: 'demo', login: 'alice', password: 'alice-password-1' })).result).toBe('OK');
      // Suspend and restore.
      await page.click('button:has-text("Suspend")');
      await expect.poll(() => text(page.locator('.badge').first())).toBe('Suspended');
      expect((await post(`${server.url}/api2/login/`, { user: 'demo', login: 'alice', password: 'alice-password-1' })).result).toBe('FAIL');
      await page.click('button:has-text("Restore")');
      await expect.poll(() => text(page.locator('.badge').first())).toBe('Active');
      // Delete asks first, saying what it does; Cancel leaves the member as it is.
      await page.click('form[action$="/status"] button:has-text("Delete")');
      await expect.poll(() => text(page.locator('h1'))).toBe('Delete alice?');
      await shoot(page, 'delete-confirm');
      await page.click('a:has-text("Cancel")');
      await expect.poll(() => text(page.locator('.badge').first())).toBe('Active');
      // An address that is no page: a console page that says so.
      expect((await page.goto(`${server.url}/admin/accounts/demo/nowhere`))!.status()).toBe(404);
      await shoot(page, 'not-found');
      await page.goBack();
      // The API sees every change, made as the operator.
      const listed = await post(`${server.url}/api2/list/`, { user: 'demo', api_key: key, login_full: 'alice', record: '{email}{status}{city}' });
      expect(listed.members).toEqual([{ email: 'alice@example.org', status: 'Active', city: 'Bergen' }]);
      // A refused change shows the API's own error.
      await page.fill('input[name=email]', 'not-an-address');
      await page.click('button:has-text("Save")');
      await expect.poll(() => text(page.locator('.notice.error'))).toContain('email');
      // Create.
      await page.goto(`${server.url}/admin/accounts/demo/members/new`);
      await page.fill('input[name=login]', 'bob');
      await page.fill('input[name=email]', 'bob@example.com');
      await page.fill('input[name=new_field]', 'city');
      await page.fill('input[name=new_value]', 'Lima');
      await shoot(page, 'new-member');
      await page.click('button:has-text("Create")');
      await expect.poll(() => text(page.locator('.notice'))).toContain('Member bob created. Its generated password:');
      // Sign out: the session is over, the pages ask to sign in again.
      await page.click('button:has-text("Sign out")');
      await expect.poll(() => text(page.locator('.notice'))).toBe('You are signed out.');
      await page.goto(`${server.url}/admin/accounts/demo/members`);
      await expect.poll(() => text(page.locator('h1'))).toBe('Sign in');
      await shoot(page, 'sign-in');
      await context.close();
    });

    it('suspends the members a filter finds after its preview, with one event, and activates them again', { timeout: 60_000 }, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await operator(context, 'bulk@example.com', 'demo', 'editor');
      await page.goto(`${server.url}/admin/accounts/demo/members?q=member1`);
      // member10 … member19: the search's ten.
      await expect.poll(() => text(page.locator('.count'))).toBe('10 members');
      await page.click('summary:has-text("Bulk action on these 10 members")');
      await page.selectOption('select[name=action]', 'suspend');
      await page.click('button:has-text("Preview")');
      await expect.poll(() => text(page.locator('h1'))).toBe('Suspend?');
      await expect.poll(() => text(page.locator('main'))).toContain('Suspend 10 members: they can no longer sign in');
      expect(await page.locator('tbody tr').count()).toBe(10);
      await shoot(page, 'bulk-preview');
      const listed = async (status: string) =>
        (await post(`${server.url}/api2/list/`, { user: 'demo', api_key: key, status, login: 'member1', record: '{login}' })).members as unknown[];
      expect(await listed('S')).toEqual([]);
      // The API's dry run of a change of every member: how many it would change, and nothing changed.
      const everyone = (await post(`${server.url}/api2/list/`, { user: 'demo', api_key: key, record: '{status}' })).members as Array<{ status: string }>;
      const dry = await post(`${server.url}/api2/update/`, { user: 'demo', api_key: key, find_member_id: '*', status: 'S', dry_run: '1' });
      expect(dry).toEqual({ result: 'OK', message: '', would_update: everyone.filter((member) => member.status !== 'Deleted').length });
      expect(await listed('S')).toEqual([]);
      await page.click('button:has-text("Suspend: 10 members")');
      await expect.poll(() => text(page.locator('.notice'))).toBe('Done: 10 members changed.');
      expect(new URL(page.url()).searchParams.get('q')).toBe('member1');
      expect(await listed('S')).toHaveLength(10);
      const events = await post(`${server.url}/api2/events/`, { user: 'demo', api_key: key, types: 'member.bulk_updated' });
      expect(events.events).toEqual([expect.objectContaining({ data: expect.objectContaining({ selector: 'filter', count: 10, set: { status: 'S' } }) })]);
      // Back again: the Suspended ones of the same search, activated.
      await page.selectOption('select[name=status]', 'S');
      await page.click('button:has-text("Search")');
      await page.click('summary:has-text("Bulk action on these 10 members")');
      await page.selectOption('select[name=action]', 'activate');
      await page.click('button:has-text("Preview")');
      await page.click('button:has-text("Activate: 10 members")');
      await expect.poll(() => text(page.locator('.notice'))).toBe('Done: 10 members changed.');
      expect(await listed('S')).toEqual([]);
      await context.close();
    });

    it(
      'walks the walls again: a reload after a change, a bookmarked form address, the account’s addresses, a member’s actions, a bulk change in the history, the Deleted on request',
      { timeout: 90_000 },
      async () => {
        // An account of its own, with a mail server, for the reset mail.
        const smtp = await startSmtp();
        try {
          const created = await runCli(['account', 'create', 'walls', '--json'], env);
          expect(created.code, created.stderr).toBe(0);
          const wallsKey = (JSON.parse(created.stdout) as { api_key: string }).api_key;
          expect((await runCli(['account', 'set', 'walls', '--smtp-url', smtp.url, '--mail-from', 'Walls <no-reply@walls.example>'], env)).code).toBe(0);
          const { id } = await post(`${server.url}/api2/create/`, {
            user: 'walls',
            api_key: wallsKey,
            _login: 'rita',
            _email: 'rita@example.com',
            _password: 'rita-password-1',
            plan: 'gold',
          });
          const sessions = [];
          for (let i = 0; i < 2; i++)
            sessions.push(
              (await post(`${server.url}/api2/login/`, { user: 'walls', api_key: wallsKey, login: 'rita', password: 'rita-password-1' })).session as string,
            );
          const session = async (token: string) => (await post(`${server.url}/api2/session/`, { user: 'walls', api_key: wallsKey, session: token })).result;
          const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
          // The set-up link's page; setting the password signs the operator in.
          const added = await runCli(['operator', 'add', 'walls@example.com', '--account', 'walls', '--role', 'editor', '--json'], env);
          const page = await context.newPage();
          const link = new URL((JSON.parse(added.stdout) as { link: string }).link);
          await page.goto(`${server.url}${link.pathname}${link.search}`);
          await expect.poll(() => text(page.locator('h1'))).toBe('Set your password');
          await shoot(page, 'set-password');
          await page.fill('input[name=password]', PASSWORD);
          await page.fill('input[name=confirm]', PASSWORD);
          await page.click('button[type=submit]');
          await expect.poll(() => text(page.locator('h1'))).toBe('Members of walls');
          // An operator of two accounts opens to the list of them.
          expect((await runCli(['operator', 'add', 'walls@example.com', '--account', 'demo', '--role', 'viewer'], env)).code).toBe(0);
          await page.goto(`${server.url}/admin/`);
          await expect.poll(() => text(page.locator('h1'))).toBe('Your accounts');
          await shoot(page, 'accounts');
          const members = `${server.url}/admin/accounts/walls/members`;
          const memberPage = `${members}/${id}`;
          const history = () => text(page.locator('.card', { hasText: 'History' }));

          // A change redirects to the page it changed; a reload shows that page and sends nothing again.
          await page.goto(memberPage);
          await page.fill('input[name="profile:plan"]', 'silver');
          await page.click('button:has-text("Save")');
          await expect.poll(() => text(page.locator('.notice'))).toBe('Saved: rita’s changes are stored.');
          expect(page.url()).toBe(`${memberPage}?done=saved`);
          await page.reload();
          await expect.poll(() => text(page.locator('h1'))).toBe('rita');
          expect((await history()).match(/plan: gold → silver/g)).toHaveLength(1);

          // A refused change is shown at the form's address; opened later (a bookmark), that
          // address opens the member's page.
          await page.fill('input[name=email]', 'not-an-address');
          await page.click('button:has-text("Save")');
          await expect.poll(() => text(page.locator('.notice.error'))).toContain('email');
          expect(page.url()).toBe(`${memberPage}/edit`);
          const bookmarked = await context.newPage();
          expect((await bookmarked.goto(`${memberPage}/edit`))!.status()).toBe(200);
          expect(bookmarked.url()).toBe(memberPage);
          await expect.poll(() => text(bookmarked.locator('h1'))).toBe('rita');
          // (The keys are an owner's page: an editor is shown why not, as a page.)
          for (const [address, lands, status] of [
            [`${memberPage}/status`, memberPage, 200],
            [`${members}/bulk?q=rit`, `${members}?q=rit`, 200],
            [`${server.url}/admin/accounts/walls/keys/add`, `${server.url}/admin/accounts/walls/keys`, 403],
            [`${server.url}/admin/accounts`, `${server.url}/admin/`, 200],
            [`${server.url}/admin/accounts/walls`, members, 200],
          ] as const) {
            expect((await bookmarked.goto(address))!.status(), address).toBe(status);
            expect(bookmarked.url(), address).toBe(lands);
            expect(await bookmarked.locator('h1').count(), address).toBe(1);
          }
          // The server's root: a page pointing at the docs and the console.
          await bookmarked.goto(`${server.url}/`);
          expect(await bookmarked.locator('a[href="/docs"]').count()).toBe(1);
          expect(await bookmarked.locator('a[href="/admin/"]').count()).toBe(1);
          await bookmarked.close();

          // A member's actions: its sessions, one ended then all; its address marked verified; a reset mail.
          await page.goto(memberPage);
          const rows = page.locator('.card', { hasText: 'Sessions' }).locator('tbody tr');
          await expect.poll(() => rows.count()).toBe(2);
          await rows.first().locator('button:has-text("End this one")').click();
          await expect.poll(() => text(page.locator('.notice'))).toBe('One session of rita is ended.');
          expect((await Promise.all(sessions.map(session))).sort()).toEqual(['FAIL', 'OK']);
          await page.click('button:has-text("End all")');
          await expect.poll(() => text(page.locator('.notice'))).toBe('Every session of rita is ended.');
          expect(await Promise.all(sessions.map(session))).toEqual(['FAIL', 'FAIL']);
          await page.click('button:has-text("Mark the e-mail verified")');
          await expect.poll(() => text(page.locator('.notice'))).toBe('rita’s e-mail address (rita@example.com) is marked verified.');
          expect(await page.locator('button:has-text("Mark the e-mail verified")').count()).toBe(0);
          await page.click('button:has-text("Send a password reset mail")');
          await expect.poll(() => text(page.locator('.notice'))).toBe('A password reset mail is on its way to rita (rita@example.com).');
          const [mail] = await smtp.waitFor(1);
          expect(mail!.to).toEqual(['rita@example.com']);
          expect(mail!.text).toContain('/api2/reset-password/?account=');

          // A bulk change shows in the history of each member it touched, with its values.
          await page.goto(`${members}?q=rita`);
          await page.click('summary:has-text("Bulk action on this member")');
          await page.selectOption('select[name=action]', 'suspend');
          await page.click('button:has-text("Preview")');
          await page.click('button:has-text("Suspend: 1 member")');
          await expect.poll(() => text(page.locator('.notice'))).toBe('Done: 1 member changed.');
          await page.goto(memberPage);
          await expect.poll(history).toContain('bulk update of 1 member (a console filter): status → S');

          // Deleted: asked first, then out of the list unless asked for ("All, including Deleted").
          await page.click('form[action$="/status"] button:has-text("Delete")');
          await page.click('button:has-text("Delete rita")');
          await expect.poll(() => text(page.locator('.notice'))).toBe('rita is Deleted. Restore brings the member back.');
          await page.goto(`${members}?q=rita`);
          await expect.poll(() => text(page.locator('main'))).toContain('No member matches.');
          await page.selectOption('select[name=status]', 'all');
          await page.click('button:has-text("Search")');
          await expect.poll(() => page.locator('tbody tr td:nth-child(2)').allInnerTexts()).toEqual(['rita']);
          await context.close();
        } finally {
          await smtp.close();
        }
      },
    );

    it('turns on a second step, then signs in with a code from the app and with a recovery code', { timeout: 60_000 }, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const page = await operator(context, 'totp@example.com', 'demo', 'editor');
      await page.click('a:has-text("Two-step sign-in")');
      await expect.poll(() => text(page.locator('h1'))).toBe('Two-step sign-in');
      const secret = (await text(page.locator('code.secret'))).replace(/ /g, '');
      const uri = (await page.locator(`a[href^="otpauth://totp/"]`).getAttribute('href'))!;
      expect(uri).toContain(`secret=${secret}`);
      // The QR code beside it holds the same address, as a phone's camera reads it.
      const picture = PNG.sync.read(await page.locator('svg.qr').screenshot());
      expect(jsQRModule.default(new Uint8ClampedArray(picture.data), picture.width, picture.height)?.data).toBe(uri);
      await shoot(page, 'two-step');
      await page.fill('input[name=code]', generateSync({ secret }));
      await page.click('button:has-text("Turn on")');
      await expect.poll(() => text(page.locator('h1'))).toBe('Your recovery codes');
      const codes = await page.locator('ul.codes code').allInnerTexts();
      expect(codes).toHaveLength(10);
      await shoot(page, 'recovery-codes');

      const signIn = async () => {
        await page.click('button:has-text("Sign out")');
        await page.fill('input[name=email]', 'totp@example.com');
        await page.fill('input[name=password]', PASSWORD);
        await page.click('button:has-text("Sign in")');
        await expect.poll(() => text(page.locator('h1'))).toBe('Second step');
      };
      // A code of the app's next step (the one just used is taken; a step either side is accepted).
      await signIn();
      await shoot(page, 'second-step');
      // Recovery codes hold letters: the box opens the keyboard with them, not a digits-only keypad.
      expect(await page.locator('input[name=code]').getAttribute('inputmode')).toBeNull();
      await page.fill('input[name=code]', generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 }));
      await page.click('button:has-text("Sign in")');
      await expect.poll(() => text(page.locator('h1'))).toBe('Members of demo');
      await expect.poll(() => text(page.locator('header'))).toContain('Two-step sign-in: on');
      // A recovery code instead.
      await signIn();
      await page.fill('input[name=code]', codes[3]!);
      await page.click('button:has-text("Sign in")');
      await expect.poll(() => text(page.locator('h1'))).toBe('Members of demo');
      await page.goto(`${server.url}/admin/two-step`);
      await expect.poll(() => text(page.locator('main'))).toContain('9 of your recovery codes are left');
      await context.close();
    });

    it('shows hostile member data as text, sends the safety headers, and caches nothing', async () => {
      const context = await browser.newContext();
      const page = await operator(context, 'reader@example.com', 'demo', 'viewer');
      const response = await page.goto(`${server.url}/admin/accounts/demo/members/${hostile}`);
      expect(response!.headers()['cache-control']).toBe('no-store');
      expect(response!.headers()['content-security-policy']).toContain("default-src 'none'");
      expect(response!.headers()['content-security-policy']).not.toContain('unsafe-inline');
      await expect.poll(() => text(page.locator('h1'))).toBe(HOSTILE_LOGIN);
      await expect.poll(() => text(page.locator('.card', { hasText: 'Profile' }))).toContain(HOSTILE_PROFILE);
      await expect.poll(() => text(page.locator('table.kv'))).toContain(HOSTILE_EMAIL);
      await page.goto(`${server.url}/admin/accounts/demo/members?columns=city&sort=id&dir=asc`);
      await expect.poll(() => text(page.locator('tbody'))).toContain(HOSTILE_PROFILE);
      expect(await page.locator('script').count()).toBe(0);
      expect(dialogs).toEqual([]);
      await context.close();
    });

    it(
      'refuses a form posted from another site, a forged fetch, a viewer’s change, the owner’s pages to a viewer and an editor, and another account’s member',
      { timeout: 60_000 },
      async () => {
        const context = await browser.newContext();
        const page = await operator(context, 'owner@example.com', 'demo', 'owner');
        await expect.poll(() => text(page.locator('h1'))).toBe('Members of demo');
        // The account's settings, an owner's page.
        await page.click('a:has-text("Settings")');
        await expect.poll(() => text(page.locator('h1'))).toBe('Settings of demo');
        await page.fill('input[name=time-zone]', 'Europe/Oslo');
        await page.click('button:has-text("Save")');
        await expect.poll(() => text(page.locator('.notice'))).toBe('Saved.');
        expect(await page.locator('input[name=time-zone]').inputValue()).toBe('Europe/Oslo');
        await shoot(page, 'settings');
        // An API key added, then rotated with a grace; the new one works from a shell.
        await page.goto(`${server.url}/admin/accounts/demo/keys`);
        await page.fill('form[action$="/keys/add"] input[name=name]', 'deploy');
        await page.click('form[action$="/keys/add"] button');
        await expect.poll(() => text(page.locator('.notice'))).toBe('The key deploy is issued.');
        const first = await text(page.locator('.issued code.secret'));
        await page.locator('tr', { hasText: 'deploy' }).locator('input[name=grace]').fill('1h');
        await page.locator('tr', { hasText: 'deploy' }).locator('button:has-text("Rotate")').click();
        await expect.poll(() => text(page.locator('.issued code.secret'))).not.toBe(first);
        const rotated = await text(page.locator('.issued code.secret'));
        await shoot(page, 'api-keys');
        const curl = await promisify(execFile)('curl', [
          '-s',
          '-d',
          'user=demo',
          '-d',
          `api_key=${rotated}`,
          '-d',
          'login=alice',
          '-d',
          'record={login}',
          `${server.url}/api2/list/`,
        ]);
        expect(JSON.parse(curl.stdout)).toEqual({ members: [{ login: 'alice' }], members_total: 1 });
        // An operator invited: its set-up link, shown once.
        await page.goto(`${server.url}/admin/accounts/demo/operators`);
        await page.fill('form.edit input[name=email]', 'helper@example.com');
        await page.selectOption('form.edit select[name=role]', 'editor');
        await page.click('button:has-text("Invite")');
        await expect
          .poll(() => text(page.locator('.notice')))
          .toBe('helper@example.com is invited as editor. The account sends no mail, so send them the link below yourself.');
        expect(await text(page.locator('.issued code.secret'))).toContain('/admin/setup?token=');
        await shoot(page, 'operators');
        // A webhook added, and a delivery seen with its attempt.
        const receiver = await startReceiver();
        try {
          await page.goto(`${server.url}/admin/accounts/demo/webhooks`);
          await page.fill('form[action$="/webhooks/add"] input[name=url]', receiver.url);
          await page.fill('form[action$="/webhooks/add"] input[name=name]', 'crm');
          await page.click('form[action$="/webhooks/add"] button');
          await expect.poll(() => text(page.locator('.issued'))).toContain('whsec_');
          await shoot(page, 'webhooks');
          await post(`${server.url}/api2/create/`, {
            user: 'demo',
            api_key: key,
            _login: 'hooked',
            _email: 'hooked@example.com',
            _password: 'hooked-password',
          });
          await page.click('a:has-text("crm")');
          await expect
            .poll(async () => {
              await page.reload();
              return text(page.locator('tbody'));
            })
            .toContain('delivered');
          await expect.poll(() => text(page.locator('ul.attempts'))).toMatch(/: 200, \d+ ms/);
          expect(receiver.received.map((r) => (JSON.parse(r.body) as { type: string }).type)).toContain('member.created');
          await shoot(page, 'webhook-deliveries');
        } finally {
          await receiver.close();
        }
        // The overview: members by status, registrations and logins drawn on the server, the failed logins.
        await post(`${server.url}/api2/login/`, { user: 'demo', api_key: key, login: 'alice', password: 'alice-password-1', IP: '198.51.100.7' });
        await post(`${server.url}/api2/login/`, { user: 'demo', api_key: key, login: 'alice', password: 'not-her-password', IP: '198.51.100.7' });
        await page.goto(`${server.url}/admin/accounts/demo/overview`);
        expect(await page.locator('figure.chart svg').count()).toBe(2);
        expect(Number((await text(page.locator('.tile .figure').first())).replaceAll(',', ''))).toBeGreaterThan(0);
        expect(await text(page.locator('.card:has(h2:has-text("Last failed logins")) tbody'))).toContain('198.51.100.7');
        await shoot(page, 'overview');
        // The account's mails: the six texts, each with its variables, a test and a save.
        await page.goto(`${server.url}/admin/accounts/demo/mail`);
        expect(await page.locator('form.template textarea').count()).toBe(6);
        await shoot(page, 'mail');
        await page.goto(`${server.url}/admin/accounts/demo/members`);
        // Another site, on another origin, with a form that suspends alice, and a script's fetch.
        const evil: Server = createServer((_request, response) => {
          response.setHeader('content-type', 'text/html');
          response.end(
            `<form method="post" action="${server.url}/admin/accounts/demo/members/${alice}/status"><input type="hidden" name="status" value="S"><button>win a prize</button></form>`,
          );
        });
        await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
        try {
          const evilPage = await context.newPage();
          await evilPage.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
          const [posted] = await Promise.all([evilPage.waitForNavigation(), evilPage.click('button')]);
          expect(posted!.status()).toBe(403);
          await evilPage.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
          const forged = await evilPage.evaluate(async (target) => {
            try {
              await fetch(target, {
                method: 'POST',
                credentials: 'include',
                mode: 'no-cors',
                headers: { 'content-type': 'application/x-www-form-urlencoded' },
                body: 'status=S',
              });
              return 'sent';
            } catch (error) {
              return String(error);
            }
          }, `${server.url}/admin/accounts/demo/members/${alice}/status`);
          // Sent, and refused (the answer, cross-origin, is also withheld from the page).
          expect(['sent', 'TypeError: Failed to fetch']).toContain(forged);
        } finally {
          evil.close();
        }
        const listed = await post(`${server.url}/api2/list/`, { user: 'demo', api_key: key, login_full: 'alice', record: '{status}' });
        expect(listed.members).toEqual([{ status: 'Active' }]);

        // A viewer sees no edit form, and a change it posts anyway is refused.
        const viewerContext = await browser.newContext();
        const viewer = await operator(viewerContext, 'viewer@example.com', 'demo', 'viewer');
        await viewer.goto(`${server.url}/admin/accounts/demo/members/${alice}`);
        expect(await viewer.locator('form[action$="/edit"]').count()).toBe(0);
        const refused = await viewer.request.post(`${server.url}/admin/accounts/demo/members/${alice}/status`, {
          form: { status: 'S' },
          headers: { origin: server.url },
        });
        expect(refused.status()).toBe(403);

        // The owner's pages: not in a viewer's or an editor's navigation, and refused by address.
        const editorContext = await browser.newContext();
        const editor = await operator(editorContext, 'second-editor@example.com', 'demo', 'editor');
        for (const [who, page] of [
          ['viewer', viewer],
          ['editor', editor],
        ] as const) {
          await page.goto(`${server.url}/admin/accounts/demo/overview`);
          expect(await text(page.locator('nav.account-nav')), who).toBe('OverviewMembersRegistrations');
          for (const address of ['settings', 'mail', 'keys', 'operators', 'webhooks', 'plans', 'member-pages']) {
            const answer = await page.goto(`${server.url}/admin/accounts/demo/${address}`);
            expect(answer!.status(), `${who}: ${address}`).toBe(403);
            await expect.poll(() => text(page.locator('h1'))).toBe('Not allowed');
          }
        }
        await editorContext.close();

        // An operator of another account: demo's member by URL is not found.
        const otherContext = await browser.newContext();
        const other = await operator(otherContext, 'other@example.com', 'other', 'owner');
        const answer = await other.goto(`${server.url}/admin/accounts/demo/members/${alice}`);
        expect(answer!.status()).toBe(404);
        const write = await other.request.post(`${server.url}/admin/accounts/demo/members/${alice}/status`, {
          form: { status: 'S' },
          headers: { origin: server.url },
        });
        expect(write.status()).toBe(404);
        expect((await post(`${server.url}/api2/list/`, { user: 'demo', api_key: key, login_full: 'alice', record: '{status}' })).members).toEqual([
          { status: 'Active' },
        ]);
        await Promise.all([context.close(), viewerContext.close(), otherContext.close()]);
      },
    );
  });
}
