/**
 * The member pages under /auth/ACCOUNT/ in a real Chromium, on both engines, with a real
 * server (`member-api serve`), a real SMTP server and a small "site" the pages send the
 * browser back to:
 *
 * - the sign-in and registration pages (in English, and French for a browser that asks), a
 *   refused registration with each error beside its field; open registration on an account
 *   without an ok URL lands the member, signed in, on its profile (the bare address); with
 *   the account's ok URL, on that URL;
 * - registration with approval: the page says it waits, an operator (set up by the command
 *   line, its password chosen through its link) approves it in the console's queue, the
 *   welcome mail's verify_url is followed, and the member signs in;
 * - sign-in to the member's own urlok (on an allowed origin: a redirect; elsewhere: the page
 *   that goes on), a wrong password, and the lockout after the account's threshold;
 * - the profile: e-mail and a field changed, the password changed (a session from before
 *   ends), my data downloaded, sign-out, the reminder's mail and its reset link, deletion.
 *
 * Every page answers `Cache-Control: no-store` and holds no script; none runs off the edge of
 * a phone's screen. Screenshots (SQLite run only) go to test-output/screenshots/member-*.png (`npm run screenshots`: docs/images/), and the
 * console's two pages to console-registrations.png and console-member-pages.png.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startServe, type Served } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';
import { startSmtp, type MailCatcher, type ReceivedMail } from '../support/smtp.js';
import { text, post, screenshotPath } from '../support/browser.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const canRun = existsSync(CHROMIUM) || Boolean(process.env.CI);
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const FIELDS = 'first_name*:text:First name;plan:choice(gold|silver):Plan;terms*:checkbox:I accept the terms';
const OPERATOR = 'gardener@garden.example';
const OPERATOR_PASSWORD = 'console-horse-battery';
/** Generous: two cores, shared, and password hashing on each sign-in. */
const SLOW = { timeout: 30_000 };

/** A page's answer as the browser saw it: a member page, the console's, the reset or verify page. */
interface Answer {
  readonly url: string;
  readonly status: number;
  readonly cacheControl: string | undefined;
  readonly body: Promise<string>;
}

for (const engine of ENGINES) {
  describe.skipIf(!canRun || !engineAvailable(engine))(`the member pages in a browser [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let server: Served;
    let smtp: MailCatcher;
    let site: Server;
    let sitePort: number;
    let siteOrigin: string;
    let browser: Browser;
    let key: string;
    let clubKey: string;
    let fairKey: string;
    const answers: Answer[] = [];
    const contexts: BrowserContext[] = [];

    const api = (path: string, params: Record<string, string>, user = 'demo') => post(`${server.url}/api2/${path}/`, { user, ...params });
    const create = async (params: Record<string, string>) => {
      const created = await api('create', { api_key: key, ...params });
      expect(created, JSON.stringify(created)).toMatchObject({ result: 'OK' });
      return created as { id: string };
    };

    /** A browser context (desktop size) whose page answers are all kept, to check their headers and bodies. */
    async function newContext(options: { locale?: string } = {}): Promise<BrowserContext> {
      const context = await browser.newContext({ viewport: DESKTOP, acceptDownloads: true, ...options });
      context.setDefaultTimeout(30_000);
      context.setDefaultNavigationTimeout(30_000);
      contexts.push(context);
      context.on('response', (response) => {
        const url = response.url();
        if (!url.startsWith(server.url) || response.request().resourceType() !== 'document') return;
        const path = new URL(url).pathname;
        if (!/^\/(auth|admin)\//.test(path) && !/^\/api2\/(reset-password|verify)\//.test(path)) return;
        const html = (response.headers()['content-type'] ?? '').includes('text/html') && response.status() < 300;
        answers.push({
          url,
          status: response.status(),
          cacheControl: response.headers()['cache-control'],
          body: html ? response.text().catch(() => '') : Promise.resolve(''),
        });
      });
      return context;
    }

    /** Whether the page in front holds no script and nothing runs past a phone's width (left at phone width). */
    async function fits(page: Page, name: string): Promise<void> {
      expect(await page.locator('script').count(), name).toBe(0);
      await page.setViewportSize(PHONE);
      // (A string: the tests' types have no DOM.)
      await expect
        .poll(() => page.evaluate<number>('document.documentElement.scrollWidth'), { ...SLOW, message: `${name} runs past 390 px` })
        .toBeLessThanOrEqual(PHONE.width);
    }

    /**
     * Checks the page in front (no script, nothing past a phone's width) and, on the SQLite
     * run, saves it at desktop width and (unless `phone` is false) at phone width.
     */
    async function look(page: Page, name: string, phone = true): Promise<void> {
      try {
        await fits(page, name);
        if (engine === 'sqlite' && phone) await page.screenshot({ path: screenshotPath(`${name}-phone`), fullPage: true });
      } finally {
        await page.setViewportSize(DESKTOP);
      }
      if (engine === 'sqlite') await page.screenshot({ path: screenshotPath(`${name}`), fullPage: true });
    }

    /** The error under a field: shown right below its input, and the input described by it. */
    async function errorBeside(page: Page, id: string, message: string): Promise<void> {
      const error = page.locator(`#${id}-error`);
      await expect.poll(() => text(error), SLOW).toBe(message);
      const field = page.locator(`#${id}`);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      expect((await field.getAttribute('aria-describedby'))?.split(' ')).toContain(`${id}-error`);
      const fieldBox = (await field.boundingBox())!;
      const errorBox = (await error.boundingBox())!;
      const gap = errorBox.y - (fieldBox.y + fieldBox.height);
      expect(gap, `${id}: the error's distance below its field`).toBeGreaterThanOrEqual(0);
      expect(gap, `${id}: the error's distance below its field`).toBeLessThan(60);
    }

    /** The mail to `to` whose subject holds `subject`, once the SMTP server has it. */
    async function mailFor(to: string, subject: string): Promise<ReceivedMail> {
      const find = () => smtp.mails.find((mail) => mail.to.includes(to) && mail.subject.includes(subject));
      await expect.poll(() => Boolean(find()), { timeout: 30_000, message: `a mail "${subject}" to ${to}` }).toBe(true);
      return find()!;
    }

    /**
     * Fills and posts the sign-in form of the page in front, and waits for the answer's page
     * (the same words may be on the page before and after: a wrong password twice).
     */
    async function signIn(page: Page, login: string, password: string): Promise<void> {
      await page.fill('input[name=login]', login);
      await page.fill('input[name=password]', password);
      await Promise.all([page.waitForNavigation(SLOW), page.click('button[type=submit]')]);
    }

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      env = { DATABASE_URL: database.url };
      smtp = await startSmtp();
      // The integrator's site: where the ok URL and the members' own urlok lead.
      site = createServer((request, response) =>
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<h1>Site page ${new URL(request.url ?? '/', 'http://x').pathname}</h1>`),
      );
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      sitePort = (site.address() as AddressInfo).port;
      siteOrigin = `http://127.0.0.1:${sitePort}`;
      server = await startServe(env);
      key = server.demoKey();
      const mail = ['--smtp-url', smtp.url, '--mail-from', 'The Garden Club <no-reply@garden.example>'];
      const demo = await runCli(
        [
          'account',
          'set',
          'demo',
          '--registration',
          'open',
          '--registration-fields',
          FIELDS,
          '--return-origins',
          siteOrigin,
          '--ok-url',
          `${siteOrigin}/welcome`,
          '--page-name',
          'The Garden Club',
          '--page-accent',
          '#2f6b3a',
          '--lockout-threshold',
          '3',
          '--min-password-length',
          '10',
          ...mail,
        ],
        env,
      );
      expect(demo.code, demo.stderr).toBe(0);
      const club = await runCli(
        [
          'account',
          'create',
          'club',
          '--registration',
          'approval',
          '--registration-fields',
          'first_name*:text:First name;plan:choice(gold|silver):Plan',
          '--page-name',
          'The Garden Club',
          '--page-accent',
          '#2f6b3a',
          ...mail,
          '--json',
        ],
        env,
      );
      expect(club.code, club.stderr).toBe(0);
      clubKey = (JSON.parse(club.stdout) as { api_key: string }).api_key;
      // A third account, open, with no ok URL: a new member lands on its profile.
      const fair = await runCli(
        [
          'account',
          'create',
          'fair',
          '--registration',
          'open',
          '--registration-fields',
          FIELDS,
          '--page-name',
          'The Garden Club',
          '--page-accent',
          '#2f6b3a',
          '--min-password-length',
          '10',
          ...mail,
          '--json',
        ],
        env,
      );
      expect(fair.code, fair.stderr).toBe(0);
      fairKey = (JSON.parse(fair.stdout) as { api_key: string }).api_key;
      browser = await chromium.launch({ executablePath: CHROMIUM });
    }, 120_000);

    afterAll(async () => {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser?.close();
      server?.child.kill('SIGTERM');
      if (server) await exitOf(server.child);
      await smtp?.close();
      await new Promise((resolve) => site?.close(resolve));
      await database?.drop();
    });

    it('shows the sign-in and registration pages, in English and French, and says refused fields beside them', { timeout: 180_000 }, async () => {
      const context = await newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}/auth/demo/`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Sign in');
      expect(await text(page.locator('.brand'))).toBe('The Garden Club');
      expect(await page.title()).toBe('Sign in · The Garden Club');
      await look(page, 'member-sign-in');

      await page.click('a:has-text("Register")');
      await page.waitForURL(`${server.url}/auth/demo/?action=reg`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Register with The Garden Club');
      for (const label of ['Login', 'E-mail address', 'Password', 'The same password again', 'First name', 'Plan (optional)'])
        expect(await page.getByLabel(label, { exact: true }).count(), label).toBe(1);
      expect(await page.getByLabel('I accept the terms').getAttribute('type')).toBe('checkbox');
      await look(page, 'member-register');

      // Refused: a bad address, a short password, a required field left empty, the terms not accepted.
      await page.fill('#login', 'rose');
      await page.fill('#email', 'rose-at-example');
      await page.fill('#password', 'short');
      await page.fill('#confirm', 'short');
      await page.click('button[type=submit]');
      await expect.poll(() => text(page.locator('[role=alert]')), SLOW).toBe('Please correct the fields marked below.');
      await errorBeside(page, 'email', 'This is not an e-mail address.');
      await errorBeside(page, 'password', 'This password is too short: at least 10 characters.');
      await errorBeside(page, 'f_first_name', 'This field is required.');
      await errorBeside(page, 'f_terms', 'This field is required.');
      // What was typed is kept (but the passwords).
      expect(await page.inputValue('#login')).toBe('rose');
      expect(await page.inputValue('#email')).toBe('rose-at-example');
      expect(await page.inputValue('#password')).toBe('');
      await look(page, 'member-register-errors');

      // The same sign-in page in French, for a browser that asks for it.
      const french = await newContext({ locale: 'fr-FR' });
      const fr = await french.newPage();
      await fr.goto(`${server.url}/auth/demo/`);
      await expect.poll(() => text(fr.locator('h1')), SLOW).toBe('Connexion');
      expect(await fr.getAttribute('html', 'lang')).toBe('fr');
      expect(await text(fr.locator('label[for=login]'))).toBe('Identifiant ou adresse e-mail');
      expect(await text(fr.locator('a[href$="?action=lost"]'))).toBe('Mot de passe oublié\u202f?');
      await look(fr, 'member-sign-in-fr', false);
      await Promise.all([french.close(), context.close()]);
    });

    it('registers (open, no ok URL): the member lands on its profile page, signed in', { timeout: 180_000 }, async () => {
      const context = await newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}/auth/fair/?action=reg`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Register with The Garden Club');
      await page.fill('#login', 'rose');
      await page.fill('#email', 'rose@garden.example');
      await page.fill('#password', 'rose-password-2024');
      await page.fill('#confirm', 'rose-password-2024');
      await page.fill('#f_first_name', 'Rose');
      await page.selectOption('#f_plan', 'silver');
      await page.check('#f_terms');
      await page.click('button[type=submit]');
      // Signed in at once: the member's profile, welcomed.
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Your profile');
      expect(page.url()).toBe(`${server.url}/auth/fair/profile`);
      expect(await text(page.locator('[role=status]'))).toMatch(/^Welcome to .+, rose: your account is ready\.$/);
      expect(await text(page.locator('main > p:not([role])').first())).toBe('Signed in as rose.');
      expect(await page.inputValue('#f_first_name')).toBe('Rose');
      expect(await page.inputValue('#f_plan')).toBe('silver');
      const listed = await api('list', { api_key: fairKey, login_full: 'rose', record: '{email}{status}{first_name}{plan}{terms}' }, 'fair');
      expect(listed.members).toEqual([{ email: 'rose@garden.example', status: 'Active', first_name: 'Rose', plan: 'silver', terms: 'yes' }]);
      // The welcome mail went to the new member.
      expect((await mailFor('rose@garden.example', 'Welcome, rose')).text).toMatch(/\/api2\/verify\/\?/);
      await context.close();
    });

    // The registration page's policy lets its form lead on to the account's ok URL (Chromium
    // holds a form's redirect to `form-action`).
    it('registers (open, with the account’s ok URL): the member lands on the ok URL, signed in', { timeout: 120_000 }, async () => {
      const context = await newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${server.url}/auth/demo/?action=reg`);
        await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Register with The Garden Club');
        await page.fill('#login', 'violet');
        await page.fill('#email', 'violet@garden.example');
        await page.fill('#password', 'violet-password-2024');
        await page.fill('#confirm', 'violet-password-2024');
        await page.fill('#f_first_name', 'Violet');
        await page.check('#f_terms');
        await page.click('button[type=submit]');
        await page.waitForURL(`${siteOrigin}/welcome`, { timeout: 20_000 });
        expect(await text(page.locator('h1'))).toBe('Site page /welcome');
      } finally {
        await context.close();
      }
    });

    it(
      'registers (approval): it waits, an operator approves it in the console, the welcome link verifies, the member signs in',
      { timeout: 180_000 },
      async () => {
        // The operator: made by the command line, its password chosen through its link.
        const added = await runCli(['operator', 'add', OPERATOR, '--account', 'demo', '--role', 'owner', '--json'], env);
        expect(added.code, added.stderr).toBe(0);
        const link = new URL((JSON.parse(added.stdout) as { link: string }).link);
        const console_ = await newContext();
        const admin = await console_.newPage();
        await admin.goto(`${server.url}${link.pathname}${link.search}`);
        await admin.fill('input[name=password]', OPERATOR_PASSWORD);
        await admin.fill('input[name=confirm]', OPERATOR_PASSWORD);
        await admin.click('button[type=submit]');
        // Setting the password signs the operator in.
        await expect.poll(() => text(admin.locator('h1')), SLOW).toBe('Members of demo');
        // An editor of the second account too: it has a password, so no new link.
        const again = await runCli(['operator', 'add', OPERATOR, '--account', 'club', '--role', 'editor', '--json'], env);
        expect(again.code, again.stderr).toBe(0);
        expect((JSON.parse(again.stdout) as { link: string | null }).link).toBeNull();

        // The visitor registers on the second account, which asks for approval.
        const context = await newContext();
        const page = await context.newPage();
        await page.goto(`${server.url}/auth/club/?action=reg`);
        await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Register with The Garden Club');
        await page.fill('#login', 'lily');
        await page.fill('#email', 'lily@garden.example');
        await page.fill('#password', 'lily-password-2024');
        await page.fill('#confirm', 'lily-password-2024');
        await page.fill('#f_first_name', 'Lily');
        await page.selectOption('#f_plan', 'gold');
        await page.click('button[type=submit]');
        await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Thank you for registering');
        expect(await text(page.locator('main > p').first())).toBe('Your registration waits for approval. You will receive an e-mail once it is accepted.');
        await look(page, 'member-register-waiting');
        // Not yet: the right password is refused, and the page says why.
        await page.click('a:has-text("Back to sign-in")');
        await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Sign in');
        await signIn(page, 'lily', 'lily-password-2024');
        await expect.poll(() => text(page.locator('[role=alert]')), SLOW).toBe('Your membership is suspended, or waits for approval.');
        // The operator is told, with the queue's address.
        const told = await mailFor(OPERATOR, 'lily registered and waits for approval');
        expect(told.text).toContain('/admin/accounts/club/registrations');

        // The operator approves it in the queue.
        await admin.goto(`${server.url}/admin/accounts/club/registrations`);
        await expect.poll(() => text(admin.locator('h1')), SLOW).toBe('Registrations awaiting approval');
        const row = admin.locator('tbody tr', { hasText: 'lily' });
        await expect.poll(() => text(row), SLOW).toContain('lily@garden.example');
        expect(await text(row)).toContain('Lily');
        expect(await text(row)).toContain('gold');
        expect(await admin.locator('script').count()).toBe(0);
        await look(admin, 'console-registrations');
        await row.locator('button:has-text("Approve")').click();
        await expect
          .poll(() => text(admin.locator('.notice')), SLOW)
          .toBe('Approved: the member is Active (and welcomed by mail when the account sends mail).');
        await expect.poll(() => text(admin.locator('tbody')), SLOW).toContain('No registration waits.');

        // The welcome mail's link, followed in the member's browser.
        const welcome = await mailFor('lily@garden.example', 'Welcome, lily');
        const verify = /https?:\/\/\S+\/api2\/verify\/\?\S+/.exec(welcome.text)?.[0];
        expect(verify, welcome.text).toBeDefined();
        const verified = await page.goto(verify!);
        expect(verified!.status()).toBe(200);
        await expect.poll(() => text(page.locator('h1')), SLOW).toBe('E-mail address verified');
        await fits(page, 'the verify page');
        await page.setViewportSize(DESKTOP);
        expect((await api('list', { api_key: clubKey, login_full: 'lily', record: '{status}{first_name}{plan}' }, 'club')).members).toEqual([
          { status: 'Active', first_name: 'Lily', plan: 'gold' },
        ]);

        // And signs in: no ok URL on this account, so the profile.
        await page.goto(`${server.url}/auth/club/`);
        await signIn(page, 'lily', 'lily-password-2024');
        await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Your profile');
        expect(await text(page.locator('main > p').first())).toBe('Signed in as lily.');
        expect(page.url()).toBe(`${server.url}/auth/club/`);

        // The owner's settings page for the member pages.
        await admin.goto(`${server.url}/admin/accounts/demo/member-pages`);
        await expect.poll(() => text(admin.locator('h1')), SLOW).toBe('Member pages');
        expect(await admin.inputValue('[name=page_name]')).toBe('The Garden Club');
        expect(await admin.inputValue('[name=registration]')).toBe('open');
        expect(await admin.locator('script').count()).toBe(0);
        await look(admin, 'console-member-pages');
        await Promise.all([context.close(), console_.close()]);
      },
    );

    it('signs in to the member’s own urlok, says a wrong password, and locks after the threshold', { timeout: 180_000 }, async () => {
      await create({ _login: 'alice', _email: 'alice@garden.example', _password: 'alice-password-1', set_urlok: `${siteOrigin}/members/alice` });
      const context = await newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}/auth/demo/`);
      await signIn(page, 'alice', 'not-her-password');
      await expect.poll(() => text(page.locator('[role=alert]')), SLOW).toBe('Wrong login or password.');
      expect(await page.inputValue('input[name=login]')).toBe('alice');
      await look(page, 'member-sign-in-error');
      await signIn(page, 'alice', 'alice-password-1');
      // Her own urlok (on an allowed origin: a redirect), not the account's ok URL.
      await page.waitForURL(`${siteOrigin}/members/alice`, SLOW);
      expect(await text(page.locator('h1'))).toBe('Site page /members/alice');
      // Sign-out by the page interface's address.
      await page.goto(`${server.url}/auth/demo/?action=logout`);
      await expect.poll(() => text(page.locator('.notice')), SLOW).toBe('You are signed out.');
      await page.goto(`${server.url}/auth/demo/`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Sign in');

      // A urlok on an origin the account does not list: the page that goes on (a link, and a refresh).
      await create({ _login: 'basil', _email: 'basil@garden.example', _password: 'basil-password-1', set_urlok: `http://localhost:${sitePort}/members/basil` });
      await signIn(page, 'basil', 'basil-password-1');
      await page.waitForURL(`http://localhost:${sitePort}/members/basil`, SLOW);
      expect(await text(page.locator('h1'))).toBe('Site page /members/basil');

      // Lockout: the account's threshold is 3 failures in a row (counted per address, and across all).
      await create({ _login: 'carol', _email: 'carol@garden.example', _password: 'carol-password-1' });
      const locked = await newContext();
      const tries = await locked.newPage();
      await tries.goto(`${server.url}/auth/demo/`);
      for (let attempt = 1; attempt <= 3; attempt++) {
        await signIn(tries, 'carol', `wrong-password-${attempt}`);
        await expect.poll(() => text(tries.locator('[role=alert]')), SLOW).toBe('Wrong login or password.');
        expect(await tries.inputValue('input[name=login]')).toBe('carol');
      }
      // Locked: a wrong password gets the answer any gets; the right one learns of the lock and
      // how long it lasts, and gets no session.
      await signIn(tries, 'carol', 'wrong-password-4');
      await expect.poll(() => text(tries.locator('[role=alert]')), SLOW).toBe('Wrong login or password.');
      await signIn(tries, 'carol', 'carol-password-1');
      await expect.poll(() => text(tries.locator('[role=alert]')), SLOW).toMatch(/^Your password is right, but signing in is locked/);
      expect(tries.url()).toBe(`${server.url}/auth/demo/`);
      expect((await locked.cookies(server.url)).filter((cookie) => cookie.name === 'member_demo')).toEqual([]);
      // /api2/login/ from the same address (IP=127.0.0.1, what the page recorded) is refused too.
      expect(await api('login', { api_key: key, login: 'carol', password: 'carol-password-1', IP: '127.0.0.1' })).toMatchObject({
        result: 'FAIL',
        message: 'wrong login or password',
      });
      // The lock is the member's at that address (and across addresses only from the 100th
      // failure): /api2/login/ from another address, or with no IP, is not locked by it.
      expect(await api('login', { api_key: key, login: 'carol', password: 'carol-password-1', IP: '198.51.100.7' })).toMatchObject({ result: 'OK' });
      expect(await api('login', { login: 'carol', password: 'carol-password-1' })).toMatchObject({ result: 'OK' });
      // …and those successes do not lift the lock of the page's address.
      await signIn(tries, 'carol', 'carol-password-1');
      await expect.poll(() => text(tries.locator('[role=alert]')), SLOW).toMatch(/^Your password is right, but signing in is locked/);
      expect(await api('login', { api_key: key, login: 'carol', password: 'carol-password-1', IP: '127.0.0.1' })).toMatchObject({ result: 'FAIL' });
      await Promise.all([context.close(), locked.close()]);
    });

    it('edits the profile, changes the password, downloads my data, signs out, resets by the reminder, deletes the account', { timeout: 240_000 }, async () => {
      await create({ _login: 'dahlia', _email: 'dahlia@garden.example', _password: 'dahlia-password-1', first_name: 'Dahlia', plan: 'gold', terms: 'yes' });
      const before = (await api('login', { login: 'dahlia', password: 'dahlia-password-1' })).session as string;
      expect(await api('session', { session: before })).toMatchObject({ result: 'OK' });
      const context = await newContext();
      const page = await context.newPage();
      await page.goto(`${server.url}/auth/demo/`);
      await signIn(page, 'dahlia', 'dahlia-password-1');
      await page.waitForURL(`${siteOrigin}/welcome`, SLOW);
      await page.goto(`${server.url}/auth/demo/`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Your profile');
      expect(await page.inputValue('#email')).toBe('dahlia@garden.example');
      expect(await page.inputValue('#f_first_name')).toBe('Dahlia');
      // The checkbox is the registration's only: not on the profile.
      expect(await page.locator('#f_terms').count()).toBe(0);
      await look(page, 'member-profile');

      // A refused change: said beside its field, nothing saved.
      await page.fill('#email', 'dahlia-at-garden');
      await page.click('button:has-text("Save")');
      await errorBeside(page, 'email', 'This is not an e-mail address.');
      await look(page, 'member-profile-errors', false);
      // The e-mail and a field changed.
      await page.fill('#email', 'dahlia@new.example');
      // A new address takes the password.
      await page.fill('#email_password', 'dahlia-password-1');
      await page.fill('#f_first_name', 'Dahlia R.');
      await page.selectOption('#f_plan', 'silver');
      await page.click('button:has-text("Save")');
      await expect.poll(() => text(page.locator('[role=status]')), SLOW).toBe('Your profile is saved.');
      expect(await page.inputValue('#email')).toBe('dahlia@new.example');
      const listed = await api('list', { api_key: key, login_full: 'dahlia', record: '{email}{first_name}{plan}{terms}' });
      expect(listed.members).toEqual([{ email: 'dahlia@new.example', first_name: 'Dahlia R.', plan: 'silver', terms: 'yes' }]);

      // The password: the current one is asked; a right change ends the sessions from before.
      await page.fill('#current', 'not-the-password');
      await page.fill('form[action$="/password"] #password', 'dahlia-password-2');
      await page.fill('#confirm', 'dahlia-password-2');
      await page.click('button:has-text("Change your password")');
      await errorBeside(page, 'current', 'This is not your current password.');
      await page.fill('#current', 'dahlia-password-1');
      await page.fill('form[action$="/password"] #password', 'dahlia-password-2');
      await page.fill('#confirm', 'dahlia-password-2');
      await page.click('button:has-text("Change your password")');
      await expect.poll(() => text(page.locator('[role=status]')), SLOW).toBe('Your password is changed. Your other sessions are ended.');
      expect(await api('session', { session: before })).toMatchObject({ result: 'FAIL' });
      expect(await api('login', { login: 'dahlia', password: 'dahlia-password-1' })).toMatchObject({ result: 'FAIL' });
      expect(await api('login', { login: 'dahlia', password: 'dahlia-password-2' })).toMatchObject({ result: 'OK' });
      // This browser is still signed in (with a new session).
      await page.goto(`${server.url}/auth/demo/`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Your profile');

      // My data: a JSON download.
      const [download] = await Promise.all([page.waitForEvent('download', SLOW), page.click('a[href$="/my-data"]')]);
      expect(download.suggestedFilename()).toBe('demo-dahlia.json');
      const data = JSON.parse(readFileSync((await download.path())!, 'utf8'));
      // The same answer, asked with the browser's cookie: a download, never cached.
      const mine = await page.request.get(`${server.url}/auth/demo/my-data`, { maxRedirects: 0 });
      expect(mine.status()).toBe(200);
      expect(mine.headers()['cache-control']).toBe('no-store');
      expect(mine.headers()['content-disposition']).toBe('attachment; filename="demo-dahlia.json"');
      expect(data).toMatchObject({
        account: 'demo',
        member: { login: 'dahlia', email: 'dahlia@new.example' },
        profile: { first_name: 'Dahlia R.', plan: 'silver', terms: 'yes' },
      });
      expect(data.recent_logins.length).toBeGreaterThan(0);
      expect(Object.keys(data.member)).not.toContain('password_hash');
      expect(JSON.stringify(data)).not.toContain('dahlia-password');

      // Sign out.
      await page.click('button:has-text("Sign out")');
      await expect.poll(() => text(page.locator('.notice')), SLOW).toBe('You are signed out.');
      // Back on the sign-in page by a redirect: a reload posts nothing again.
      expect(page.url()).toBe(`${server.url}/auth/demo/`);
      expect(await text(page.locator('h1'))).toBe('Sign in');
      await look(page, 'member-signed-out');
      await page.goto(`${server.url}/auth/demo/`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Sign in');

      // The reminder: its mail, and the reset link followed.
      await page.click('a:has-text("Forgot your password?")');
      await page.waitForURL(`${server.url}/auth/demo/?action=lost`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Forgotten password');
      await look(page, 'member-lost');
      await page.fill('#who', 'dahlia@new.example');
      await page.click('button[type=submit]');
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Check your e-mail');
      await look(page, 'member-lost-sent');
      const reminder = await mailFor('dahlia@new.example', 'Choose a new password');
      const reset = /https?:\/\/\S+\/api2\/reset-password\/\?account=demo&token=\S+/.exec(reminder.text)?.[0];
      expect(reset, reminder.text).toBeDefined();
      await page.goto(reset!);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Choose a new password');
      await fits(page, 'the reset page');
      await page.setViewportSize(DESKTOP);
      await page.fill('input[name=password]', 'dahlia-password-3');
      await page.fill('input[name=confirm]', 'dahlia-password-3');
      await page.click('button[type=submit]');
      await page.waitForURL(`${siteOrigin}/welcome`, SLOW);
      expect(await api('login', { login: 'dahlia', password: 'dahlia-password-3' })).toMatchObject({ result: 'OK' });

      // Delete: the password is asked; then the member is gone and cannot sign in.
      await page.goto(`${server.url}/auth/demo/`);
      await signIn(page, 'dahlia', 'dahlia-password-3');
      await page.waitForURL(`${siteOrigin}/welcome`, SLOW);
      await page.goto(`${server.url}/auth/demo/`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Your profile');
      await page.fill('#delete_password', 'dahlia-password-2');
      await page.click('button:has-text("Delete my account")');
      await errorBeside(page, 'delete_password', 'This is not your current password.');
      await page.fill('#delete_password', 'dahlia-password-3');
      await page.click('button:has-text("Delete my account")');
      await expect.poll(() => text(page.locator('.notice')), SLOW).toMatch(/^Your membership has ended and you are signed out\./);
      expect(page.url()).toBe(`${server.url}/auth/demo/`);
      expect(await text(page.locator('h1'))).toBe('Sign in');
      await look(page, 'member-deleted');
      await page.goto(`${server.url}/auth/demo/`);
      await expect.poll(() => text(page.locator('h1')), SLOW).toBe('Sign in');
      await signIn(page, 'dahlia', 'dahlia-password-3');
      await expect.poll(() => text(page.locator('[role=alert]')), SLOW).toBe('Wrong login or password.');
      expect(await api('login', { login: 'dahlia', password: 'dahlia-password-3' })).toMatchObject({ result: 'FAIL' });
      await context.close();
    });

    it('answered every page with Cache-Control: no-store, and none of them holds a script', async () => {
      const pages = answers.filter((answer) => new URL(answer.url).pathname.startsWith('/auth/'));
      // Sign-in, registration, reminder, profile, sign-out, deletion, my data, the redirects: many.
      expect(pages.length).toBeGreaterThan(30);
      const paths = new Set(answers.map((answer) => new URL(answer.url).pathname));
      for (const path of [
        '/auth/demo/',
        '/auth/demo/register',
        '/auth/demo/lost',
        '/auth/demo/profile',
        '/auth/demo/password',
        '/auth/demo/logout',
        '/auth/demo/delete',
      ])
        expect(paths, path).toContain(path);
      for (const answer of answers) {
        expect(answer.cacheControl, `${answer.status} ${answer.url}`).toBe('no-store');
        expect(await answer.body, answer.url).not.toMatch(/<script/i);
      }
    });
  });
}
