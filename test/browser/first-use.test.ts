/**
 * A first real use, in Chromium, as a member and an operator would go about it, on both
 * engines, with a real server, a real SMTP server and the console:
 *
 * - a member signs in with its e-mail address; an address two members share signs in neither
 *   and says to use the login; a locked member is told to wait only when its password is right;
 * - a registration with another member's address (and a taken login, and a short password) is
 *   refused with every problem at once, without naming whose address it is; then a welcome;
 * - the reminder to a shared address: one mail, each login with its own link;
 * - a used or cut reset link: the account's page, in the member's language, a new link offered;
 * - the profile's errors on a phone: the form posts, redirects, and lands at the form that
 *   failed with its error in sight; a reload posts nothing again;
 * - the console: an exact login typed and Enter opens the member, an address shared by two
 *   lists both first, then the logins and addresses that begin with the words; the registrations queue on a phone keeps Approve and Refuse in reach,
 *   and Refuse asks first; the failed logins' reason column is readable; a skip link;
 * - axe-core finds no serious or critical violation on the member pages and console pages.
 *
 * Screenshots (SQLite run) go to test-output/screenshots/first-use-*.png.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startServe, type Served } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';
import { startSmtp, type MailCatcher, type ReceivedMail } from '../support/smtp.js';
import { axeViolations, operatorThroughLink, post, screenshotPath, text } from '../support/browser.js';
import { hash as hashPassword } from '@node-rs/argon2';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const canRun = existsSync(CHROMIUM) || Boolean(process.env.CI);
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const PASSWORD = 'correct-horse-9';
const OPERATOR = { email: 'owner@first-use.example', role: 'owner', password: 'console-horse-battery' };
const SLOW = { timeout: 30_000 };
for (const engine of ENGINES) {
  describe.skipIf(!canRun || !engineAvailable(engine))(`a first real use, in a browser [${engine}]`, () => {
    let database: TestDatabase;
    let env: Record<string, string>;
    let server: Served;
    let smtp: MailCatcher;
    let browser: Browser;
    let key: string;
    const contexts: BrowserContext[] = [];
    const dialogs: string[] = [];

    const api = (path: string, params: Record<string, string>) => post(`${server.url}/api2/${path}/`, { user: 'demo', api_key: key, ...params });
    const create = async (login: string, email: string) =>
      expect(await api('create', { _login: login, _email: email, _password: PASSWORD, first_name: login })).toMatchObject({ result: 'OK' });

    async function newPage(options: { viewport?: { width: number; height: number }; locale?: string } = {}): Promise<Page> {
      const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, locale: options.locale });
      context.setDefaultTimeout(30_000);
      contexts.push(context);
      return context.newPage();
    }

    const shot = async (page: Page, name: string) => {
      if (engine === 'sqlite') await page.screenshot({ path: screenshotPath(`first-use-${name}`, { forDocs: false }), fullPage: true });
    };

    async function submit(page: Page, selector = 'button[type=submit]'): Promise<void> {
      await Promise.all([page.waitForNavigation(SLOW), page.click(selector)]);
    }

    async function signIn(page: Page, login: string, password = PASSWORD): Promise<void> {
      await page.goto(`${server.url}/auth/demo/`);
      await page.fill('input[name=login]', login);
      await page.fill('input[name=password]', password);
      await submit(page);
    }

    async function mailsTo(to: string, subject: string, count = 1): Promise<ReceivedMail[]> {
      const find = () => smtp.mails.filter((mail) => mail.to.includes(to) && mail.subject.includes(subject));
      await expect.poll(() => find().length, { timeout: 30_000, message: `${count} mail(s) "${subject}" to ${to}` }).toBeGreaterThanOrEqual(count);
      return find();
    }

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      env = { DATABASE_URL: database.url };
      smtp = await startSmtp();
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
          'first_name*:text:First name',
          '--check-fields',
          'plan',
          '--page-name',
          'The Garden Club',
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
        ['account', 'create', 'club', '--registration', 'approval', '--registration-fields', 'first_name*:text:First name', ...mail],
        env,
      );
      expect(club.code, club.stderr).toBe(0);
      await create('ada', 'ada@example.com');
      await create('bob', 'family@example.com');
      await create('bea', 'family@example.com');
      await create('carl', 'carl@example.com');
      await create('dora', 'dora@example.com');
      browser = await chromium.launch({ executablePath: CHROMIUM });
    }, 120_000);

    afterAll(async () => {
      for (const context of contexts) await context.close().catch(() => {});
      await browser?.close();
      server?.child.kill('SIGTERM');
      if (server) await exitOf(server.child);
      await smtp?.close();
      await database?.drop();
    }, 60_000);

    it('signs a member in with its e-mail address; a shared address signs in no one and says to use the login', async () => {
      const page = await newPage();
      await signIn(page, 'ada@example.com');
      expect(await text(page.locator('h1'))).toBe('Your profile');
      expect(await text(page.locator('main'))).toContain('ada');
      await shot(page, 'signed-in-by-address');

      const other = await newPage();
      await signIn(other, 'family@example.com');
      expect(await text(other.locator('h1'))).toBe('Sign in');
      expect(await text(other.locator('[role=alert]'))).toBe('Several members share this e-mail address: sign in with your login.');
      expect(await text(other.locator('label[for=login]'))).toBe('Login or e-mail address');
      await shot(other, 'shared-address');
      await signIn(other, 'bea');
      expect(await text(other.locator('h1'))).toBe('Your profile');
    }, 60_000);

    it('tells a locked member to wait only when its password is right', async () => {
      const page = await newPage();
      for (let attempt = 0; attempt < 3; attempt++) {
        await signIn(page, 'carl', 'not-the-password');
        expect(await text(page.locator('[role=alert]'))).toBe('Wrong login or password.');
      }
      await signIn(page, 'carl', 'still-not-it');
      expect(await text(page.locator('[role=alert]'))).toBe('Wrong login or password.');
      await signIn(page, 'carl');
      expect(await text(page.locator('[role=alert]'))).toMatch(
        /^Your password is right, but signing in is locked after too many wrong attempts\. Try again in \d+ min\.$/,
      );
      expect(await text(page.locator('h1'))).toBe('Sign in');
      await shot(page, 'locked');
    }, 60_000);

    it('refuses a registration with an address in use, telling every problem at once, then welcomes a new member', async () => {
      const page = await newPage();
      await page.goto(`${server.url}/auth/demo/?action=reg`);
      await page.fill('#login', 'bob');
      await page.fill('#email', 'ada@example.com');
      await page.fill('#password', 'short');
      await page.fill('#confirm', 'short');
      await page.fill('#f_first_name', 'Robert');
      await submit(page);
      // Answered with a redirect to the page (a reload posts nothing), every problem at once.
      expect(new URL(page.url()).search).toBe('?action=reg');
      expect(await text(page.locator('#login-error'))).toBe('This login is taken: choose another one.');
      expect(await text(page.locator('#email-error'))).toBe(
        'This address cannot be used here. If it is yours, use “Forgot your password?” on the sign-in page.',
      );
      expect(await text(page.locator('#password-error'))).toBe('This password is too short: at least 10 characters.');
      expect(await page.locator('body').textContent()).not.toContain('ada');
      expect(await page.inputValue('#email')).toBe('ada@example.com');
      expect(await page.inputValue('#f_first_name')).toBe('Robert');
      expect(await page.inputValue('#password')).toBe('');
      await shot(page, 'registration-refused');

      await page.fill('#login', 'newbie');
      await page.fill('#email', 'newbie@example.com');
      await page.fill('#password', 'a-long-password-1');
      await page.fill('#confirm', 'a-long-password-1');
      await submit(page);
      expect(await text(page.locator('h1'))).toBe('Your profile');
      expect(await text(page.locator('[role=status]'))).toBe('Welcome to The Garden Club, newbie: your account is ready.');
      await shot(page, 'welcome');
      // The address's owner still gets its reminder.
      const lost = await newPage();
      await lost.goto(`${server.url}/auth/demo/?action=lost`);
      await lost.fill('#who', 'ada@example.com');
      await submit(lost);
      const [reminder] = await mailsTo('ada@example.com', 'Choose a new password');
      expect(reminder!.text).toContain('Hello ada');
    }, 90_000);

    it('answers a reminder, a new password by link and a registration awaiting approval by a redirect: a reload sends and registers nothing again', async () => {
      const page = await newPage();
      await page.goto(`${server.url}/auth/demo/?action=lost`);
      await page.fill('#who', 'carl@example.com');
      await submit(page);
      expect(page.url()).toBe(`${server.url}/auth/demo/?action=lost`);
      expect(await text(page.locator('h1'))).toBe('Check your e-mail');
      const [mail] = await mailsTo('carl@example.com', 'Choose a new password');
      await page.reload();
      expect(await text(page.locator('h1'))).toBe('Forgotten password');

      await page.goto(/https?:\/\/\S+\/api2\/reset-password\/\S+/.exec(mail!.text)![0]);
      await page.fill('#password', 'carl-new-password-1');
      await page.fill('#confirm', 'carl-new-password-1');
      await submit(page);
      expect(page.url()).toBe(`${server.url}/auth/demo/`);
      expect(await text(page.locator('[role=status]'))).toBe('Your password is changed. You can sign in with it now.');
      await shot(page, 'password-set');
      await page.reload();
      expect(await text(page.locator('h1'))).toBe('Sign in');
      expect(await page.locator('[role=alert]').count()).toBe(0);

      await page.goto(`${server.url}/auth/club/?action=reg`);
      await page.fill('#login', 'hugo');
      await page.fill('#email', 'hugo@example.com');
      await page.fill('#f_first_name', 'Hugo');
      await page.fill('#password', 'a-long-password-1');
      await page.fill('#confirm', 'a-long-password-1');
      await submit(page);
      expect(page.url()).toBe(`${server.url}/auth/club/?action=reg`);
      expect(await text(page.locator('h1'))).toBe('Thank you for registering');
      await page.reload();
      // The form again, not "this login is taken": nothing was posted twice.
      expect(await text(page.locator('h1'))).toBe('Register with club');
      expect(await page.locator('[role=alert], .field-error').count()).toBe(0);
      expect(smtp.mails.filter((sent) => sent.to.includes('carl@example.com'))).toHaveLength(1);
    }, 90_000);

    it('mails one reminder to an address two members share, each login with its own link; a used link leads back to a new one', async () => {
      const page = await newPage({ locale: 'fr-FR' });
      await page.goto(`${server.url}/auth/demo/?action=lost`);
      await page.fill('#who', 'family@example.com');
      await submit(page);
      // Asked on a French page: the mail is in French too.
      const mails = await mailsTo('family@example.com', 'Choisissez un nouveau mot de passe');
      expect(mails).toHaveLength(1);
      const body = mails[0]!.text;
      expect(body).toContain('Plusieurs adhésions partagent cette adresse');
      const links = [...body.matchAll(/^(bob|bea):\r?\n(http\S+)$/gm)].map((match) => ({ login: match[1]!, url: match[2]! }));
      expect(links.map((link) => link.login).sort()).toEqual(['bea', 'bob']);
      expect(new URL(links[0]!.url).searchParams.get('account')).toBe('demo');
      const bea = links.find((link) => link.login === 'bea')!;

      await page.goto(bea.url);
      expect(await text(page.locator('main'))).toContain('bea');
      await page.fill('#password', 'bea-new-password-1');
      await page.fill('#confirm', 'bea-new-password-1');
      await submit(page);
      // Used: the account's page, in the member's language, the address filled in for a new link.
      const used = await page.goto(bea.url);
      expect(used!.status()).toBe(410);
      expect(await page.locator('html').getAttribute('lang')).toBe('fr');
      expect(await text(page.locator('h1'))).toBe('Lien déjà utilisé');
      expect(await page.inputValue('#who')).toBe('family@example.com');
      expect(await page.title()).toContain('Lien déjà utilisé');
      await shot(page, 'link-used');
      await submit(page);
      expect(await text(page.locator('h1'))).toBe('Consultez vos e-mails');
      // A link cut short still names its account: its page, and the reminder.
      const cut = new URL(bea.url);
      cut.searchParams.set('token', cut.searchParams.get('token')!.slice(0, 20));
      const opened = await page.goto(cut.toString());
      expect(opened!.status()).toBe(404);
      expect(await text(page.locator('h1'))).toBe('Lien non valide');
      expect(await page.locator('form[action="/auth/demo/lost"]').count()).toBe(1);
      await shot(page, 'link-cut');
    }, 90_000);

    it('lands a phone on the profile form that failed, its error in sight; a reload posts nothing again', async () => {
      const page = await newPage({ viewport: PHONE });
      await signIn(page, 'dora');
      const posts: string[] = [];
      page.on('request', (request) => {
        if (request.method() === 'POST') posts.push(request.url());
      });
      await page.fill('#current', 'not-my-password');
      await page.fill('#password', 'a-new-password-2');
      await page.fill('#confirm', 'a-new-password-2');
      await submit(page, '#password-form button[type=submit]');
      expect(new URL(page.url()).hash).toBe('#password-form');
      const error = page.locator('#current-error');
      expect(await text(error)).toBe('This is not your current password.');
      const box = (await error.boundingBox())!;
      expect(box.y, 'the error is on the screen').toBeGreaterThanOrEqual(0);
      expect(box.y + box.height, 'the error is on the screen').toBeLessThanOrEqual(PHONE.height);
      await shot(page, 'profile-error-phone');
      expect(posts).toHaveLength(1);
      await page.reload();
      expect(posts).toHaveLength(1);
      expect(await text(page.locator('h1'))).toBe('Your profile');

      await page.fill('#delete_password', 'wrong-again');
      await submit(page, '#delete-form button[type=submit]');
      expect(new URL(page.url()).hash).toBe('#delete-form');
      const deleteBox = (await page.locator('#delete_password-error').boundingBox())!;
      expect(deleteBox.y + deleteBox.height).toBeLessThanOrEqual(PHONE.height);
      expect(deleteBox.y).toBeGreaterThanOrEqual(0);

      await page.fill('#email', 'dora@new.example.com');
      await page.fill('#email_password', PASSWORD);
      await submit(page, '#profile-form button[type=submit]');
      expect(await text(page.locator('[role=status]'))).toBe('Your profile is saved.');
      expect(await page.evaluate<number>('window.scrollY')).toBe(0);
    }, 60_000);

    describe('the console', () => {
      let console: Page;

      it('signs an owner in through its set-up link', async () => {
        const context = await browser.newContext({ viewport: DESKTOP });
        contexts.push(context);
        console = await operatorThroughLink(context, { url: server.url, env }, { ...OPERATOR, account: 'demo' }, dialogs);
        const owner = await runCli(['operator', 'add', OPERATOR.email, '--account', 'club', '--role', 'owner'], env);
        expect(owner.code, owner.stderr).toBe(0);
      }, 60_000);

      it('opens the member whose login is typed, and lists the members of an address first', async () => {
        await console.goto(`${server.url}/admin/accounts/demo/members`);
        await console.fill('input[name=q]', 'bob');
        await Promise.all([console.waitForNavigation(SLOW), console.press('input[name=q]', 'Enter')]);
        expect(new URL(console.url()).pathname).toMatch(/^\/admin\/accounts\/demo\/members\/\d+$/);
        expect(await text(console.locator('h1'))).toContain('bob');

        await console.goto(`${server.url}/admin/accounts/demo/members`);
        await console.fill('input[name=q]', 'family@example.com');
        await Promise.all([console.waitForNavigation(SLOW), console.press('input[name=q]', 'Enter')]);
        const exact = console.locator('section.exact');
        expect(await text(exact.locator('h2'))).toBe('Exact matches');
        expect((await exact.locator('li strong').allTextContents()).sort()).toEqual(['bea', 'bob']);
        await shot(console, 'console-exact-matches');
      }, 60_000);

      it('lists the exact match first, then the members whose login or address begins with the words, then the rest', async () => {
        // david.bernard1 … 35: the newest first would put david.bernard3 near the end.
        for (let n = 1; n <= 35; n += 1) await create(`david.bernard${n}`, `d${n}@bernard.example`);
        await create('dbx', 'David.Bernard3@elsewhere.example');
        await create('ann.david.bernard3', 'ann@bernard.example');
        await console.goto(`${server.url}/admin/accounts/demo/members?q=david.bernard3`);
        expect(await console.locator('section.exact li strong').allTextContents()).toEqual(['david.bernard3']);
        const prefix = console.locator('section.prefix');
        expect(await text(prefix.locator('h2'))).toBe('Logins and addresses beginning with “david.bernard3”');
        // Logins in order, then the address that begins with the words; never the exact one again.
        expect(await prefix.locator('li strong').allTextContents()).toEqual([
          'david.bernard30',
          'david.bernard31',
          'david.bernard32',
          'david.bernard33',
          'david.bernard34',
          'david.bernard35',
          'dbx',
        ]);
        // The login that only contains the words is in the list below, not above it.
        expect(await console.locator('section.prefix, section.exact').getByText('ann.david.bernard3').count()).toBe(0);
        expect(await console.locator('table').getByText('ann.david.bernard3', { exact: true }).count()).toBe(1);
        await shot(console, 'console-prefix-matches');
      }, 120_000);

      it('keeps what an operator typed in a refused edit, the refused field marked and why beside it', async () => {
        await console.goto(`${server.url}/admin/accounts/demo/members?q=bob&go=1`);
        await console.fill('#edit-form input[name=login]', 'bea');
        await console.fill('#edit-form input[name=email]', 'robert@example.com');
        await console.fill('#edit-form input[name="profile:first_name"]', 'Robert');
        await Promise.all([console.waitForNavigation(SLOW), console.click('#edit-form button[type=submit]')]);
        const login = console.locator('#edit-form input[name=login]');
        expect(await login.inputValue()).toBe('bea');
        expect(await login.getAttribute('aria-invalid')).toBe('true');
        expect(await text(console.locator('#edit-error'))).toMatch(/taken/i);
        expect(await console.locator('#edit-form input[name=email]').inputValue()).toBe('robert@example.com');
        expect(await console.locator('#edit-form input[name="profile:first_name"]').inputValue()).toBe('Robert');
        await shot(console, 'console-edit-refused');
        // A bad value of a profile field's box: that box is marked.
        await console.fill('#edit-form input[name=login]', 'bob');
        await console.fill('#edit-form input[name=exp_logins]', 'many');
        await console.selectOption('#edit-form select[name=is_exp_logins]', 'S');
        await Promise.all([console.waitForNavigation(SLOW), console.click('#edit-form button[type=submit]')]);
        expect(await console.locator('#edit-form input[name=exp_logins]').getAttribute('aria-invalid')).toBe('true');
        expect(await console.locator('#edit-form input[name=exp_logins]').inputValue()).toBe('many');
        expect(await console.locator('#edit-form select[name=is_exp_logins]').inputValue()).toBe('S');
      }, 60_000);

      it('maps an imported column to the account’s own field, headings matched loosely', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'first-use-import-'));
        const file = join(dir, 'people.csv');
        writeFileSync(file, 'Login,E-mail,First Name,Plan,Favourite Colour\nhugo,hugo@example.com,Hugo,gold,green\n');
        await console.goto(`${server.url}/admin/accounts/demo/members/import`);
        await console.setInputFiles('input[type=file]', file);
        await Promise.all([console.waitForNavigation(SLOW), console.click('button:has-text("Upload")')]);
        expect(await console.locator('select[name="map:2"]').inputValue()).toBe('profile:first_name');
        expect(await console.locator('select[name="map:3"]').inputValue()).toBe('profile:plan');
        // A heading that is no field's name is left out until chosen; every select offers the account's fields.
        expect(await console.locator('select[name="map:4"]').inputValue()).toBe('');
        expect(await console.locator('select[name="map:4"] option[value="profile:first_name"]').count()).toBe(1);
        await shot(console, 'console-import-mapping');
      }, 60_000);

      it('invites by mail, mails a forgotten password’s link, and lets an owner mail an operator a new one', async () => {
        /** The set-up link of the newest mail to `to` whose subject holds `subject`, opened and a password chosen there: signed in. */
        async function chooseThroughMail(to: string, subject: string, count: number, password: string): Promise<Page> {
          const mails = await mailsTo(to, subject, count);
          // (No PUBLIC_URL on this test's server: the mail gives the path, saying so.)
          const link = `${server.url}${/(\/admin\/setup\?token=[\w-]+)/.exec(mails.at(-1)!.text)![1]!}`;
          const page = await newPage();
          await page.goto(link);
          await page.fill('input[name=password]', password);
          await page.fill('input[name=confirm]', password);
          await submit(page);
          expect(new URL(page.url()).pathname).toMatch(/^\/admin\/accounts\/demo\/members/);
          return page;
        }
        for (const email of ['ed@first-use.example', 'fay@first-use.example']) {
          await console.goto(`${server.url}/admin/accounts/demo/operators`);
          await console.fill('form.edit input[name=email]', email);
          await console.selectOption('form.edit select[name=role]', 'editor');
          await submit(console, 'form.edit button[type=submit]');
          expect(await text(console.locator('.notice'))).toContain(email);
          expect(await console.locator('code.secret').count()).toBe(0);
          await chooseThroughMail(email, 'You are invited', 1, 'first-password-of-mine');
        }
        // Forgot: the same answer for an address no operator has, and no mail.
        const asker = await newPage();
        for (const email of ['fay@first-use.example', 'nobody@first-use.example']) {
          await asker.goto(`${server.url}/admin/sign-in`);
          await Promise.all([asker.waitForNavigation(SLOW), asker.click('text=Forgot your password?')]);
          await asker.fill('input[name=email]', email);
          await submit(asker);
          // The sign-in page, saying so, by a redirect (a reload mails nothing again).
          expect(new URL(asker.url()).pathname).toBe('/admin/sign-in');
          expect(await text(asker.locator('.notice'))).toMatch(/^If an operator has this address/);
        }
        await shot(asker, 'console-forgot-sent');
        const fay = await chooseThroughMail('fay@first-use.example', 'A new password', 1, 'second-password-of-mine');
        expect(await text(fay.locator('h1'))).toContain('demo');
        expect(smtp.mails.some((mail) => mail.to.includes('nobody@first-use.example'))).toBe(false);

        // The owner mails ed (of this account alone) a new link; its own row has none.
        await console.goto(`${server.url}/admin/accounts/demo/operators`);
        const row = console.locator('tr', { hasText: 'ed@first-use.example' });
        await Promise.all([console.waitForNavigation(SLOW), row.getByRole('button', { name: 'Send a new sign-in link' }).click()]);
        expect(await text(console.locator('.notice'))).toContain('mailed to ed@first-use.example');
        expect(await console.locator('tr', { hasText: OPERATOR.email }).getByRole('button', { name: 'Send a new sign-in link' }).count()).toBe(0);
        await shot(console, 'console-operator-link');
        await chooseThroughMail('ed@first-use.example', 'A new password', 1, 'third-password-of-mine');
      }, 120_000);

      it('makes a new member with the account’s fields, and mails it a link to choose its password', async () => {
        await console.goto(`${server.url}/admin/accounts/demo/members/new`);
        await console.fill('input[name=login]', 'ivy');
        await console.fill('input[name=email]', 'ivy@example.com');
        await console.fill('input[name="profile:first_name"]', 'Ivy');
        expect(await console.locator('input[name=mail_link]').isChecked()).toBe(true);
        await shot(console, 'console-new-member');
        await submit(console, 'form.edit button[type=submit]');
        expect(await text(console.locator('.notice'))).toBe('Member ivy created: a link to choose their password is mailed to ivy@example.com.');
        expect(await console.locator('#edit-form input[name="profile:first_name"]').inputValue()).toBe('Ivy');
        // A welcome, not a forgotten password's words; the link lives a week.
        const [mail] = await mailsTo('ivy@example.com', 'Your membership of demo');
        expect(mail!.text).toContain('a membership of demo was made for you');
        expect(mail!.text).not.toContain('If you did not ask for it');
        expect(mail!.text).toContain('/api2/reset-password/?account=demo&token=');
        const until = /until (\d{4}-\d{2}-\d{2})/.exec(mail!.text)![1]!;
        expect(Date.parse(until) - Date.now()).toBeGreaterThan(5 * 86_400_000);
      }, 60_000);

      it('reads the account’s settings in plain words, periods as typed, every error at once', async () => {
        await console.goto(`${server.url}/admin/accounts/demo/settings`);
        expect(await text(console.locator('label[for=session-idle]'))).toBe('A session ends when idle for (e.g. 30m)');
        await console.fill('#session-idle', '3h');
        await submit(console, 'form.account-settings button[type=submit]');
        expect(await console.inputValue('#session-idle')).toBe('3h');
        await console.fill('#session-idle', 'three hours');
        await console.fill('#lockout-threshold', 'lots');
        await submit(console, 'form.account-settings button[type=submit]');
        expect(await text(console.locator('.notice'))).toBe('Nothing was saved: 2 values cannot be used, as said beside each.');
        expect(await text(console.locator('#session-idle-error'))).toContain('period');
        expect(await text(console.locator('#lockout-threshold-error'))).not.toBe('');
        expect(await console.inputValue('#session-idle')).toBe('three hours');
        await shot(console, 'console-settings-refused');
      }, 60_000);

      it('keeps the queue’s decisions in reach on a phone, and asks before Refuse deletes', async () => {
        for (const login of ['gus', 'gwen']) {
          const page = await newPage();
          await page.goto(`${server.url}/auth/club/?action=reg`);
          await page.fill('#login', login);
          await page.fill('#email', `${login}@example.com`);
          await page.fill('#password', 'a-long-password-1');
          await page.fill('#confirm', 'a-long-password-1');
          await page.fill('#f_first_name', login);
          await submit(page);
          expect(await text(page.locator('h1'))).toBe('Thank you for registering');
        }
        await console.setViewportSize(PHONE);
        try {
          await console.goto(`${server.url}/admin/accounts/club/registrations`);
          for (const name of ['Approve', 'Refuse…']) {
            const box = (await console.getByText(name, { exact: true }).first().boundingBox())!;
            expect(box.x + box.width, `${name} within the phone's width`).toBeLessThanOrEqual(PHONE.width);
          }
          expect(await console.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
          await shot(console, 'console-queue-phone');
          const row = console.locator('tr', { hasText: 'gwen' });
          await row.getByText('Refuse…', { exact: true }).click();
          // Asked first: nothing is deleted until the question is answered.
          expect(await text(row.locator('details.confirm p'))).toBe('Refuse gwen’s registration? It is deleted.');
          await shot(console, 'console-refuse-asked');
          await Promise.all([console.waitForNavigation(SLOW), row.getByRole('button', { name: 'Refuse and delete' }).click()]);
          expect(await console.locator('tr', { hasText: 'gwen' }).count()).toBe(0);
          expect(await console.locator('tr', { hasText: 'gus' }).count()).toBe(1);
        } finally {
          await console.setViewportSize(DESKTOP);
        }
      }, 90_000);

      it('shows the failed logins’ reasons readably, and a skip link first', async () => {
        await console.goto(`${server.url}/admin/accounts/demo/overview`);
        const reasons = console.locator('table.failed td:last-child');
        expect(await reasons.count()).toBeGreaterThan(0);
        const cell = (await reasons.first().boundingBox())!;
        expect(cell.width, 'the reason column').toBeGreaterThan(60);
        await shot(console, 'console-overview');
        await console.keyboard.press('Tab');
        expect(await console.evaluate<string>('document.activeElement.className')).toBe('skip');
        await console.keyboard.press('Enter');
        expect(await console.evaluate<string>('document.activeElement.id')).toBe('content');
      }, 60_000);

      it('shows a change of more than 1,000 members in the danger colour, and makes it only once their number is typed', async () => {
        // 1,001 members brought in by the command line's import, with a password hash (no hashing).
        const dir = mkdtempSync(join(tmpdir(), 'first-use-bulk-'));
        const file = join(dir, 'many.csv');
        const hash = await hashPassword('many-members-password');
        const rows = Array.from({ length: 1001 }, (_, i) => `many-${i},many-${i}@example.com,"${hash}",batch-1`);
        writeFileSync(file, `login,email,password_hash,batch\n${rows.join('\n')}\n`);
        const imported = await runCli(['import', file, '--account', 'demo', '--no-progress'], env);
        expect(imported.code, imported.stderr).toBe(0);

        await console.goto(`${server.url}/admin/accounts/demo/members?field=batch&field_value=batch-1`);
        await console.click('details.bulk summary');
        await console.selectOption('details.bulk select[name=action]', 'suspend');
        await submit(console, 'details.bulk button[type=submit]');
        const confirm = console.locator('form:has(input[name=typed_count]) button[type=submit]');
        expect(await confirm.getAttribute('class')).toBe('danger');
        expect(await text(confirm)).toBe('Suspend: 1,001 members');
        await shot(console, 'console-bulk-large');
        // A wrong number changes nothing, and says so.
        await console.fill('input[name=typed_count]', '1000');
        await submit(console, 'form:has(input[name=typed_count]) button[type=submit]');
        expect(await text(console.locator('.notice'))).toBe('Nothing was changed: type the number of members, 1,001, to go on.');
        expect((await api('list', { status: 'S', login: 'many-', limit: '1' })).members_total).toBe(0);
        await console.fill('input[name=typed_count]', '1,001');
        await submit(console, 'form:has(input[name=typed_count]) button[type=submit]');
        expect(await text(console.locator('.notice'))).toBe('Done: 1,001 members changed.');
      }, 120_000);

      it('has no serious or critical accessibility violation (axe-core) on the console’s pages', async () => {
        const found: string[] = [];
        for (const path of ['members', 'members?q=family%40example.com', 'overview', 'registrations', 'settings', 'operators', 'members/new']) {
          const account = path === 'registrations' ? 'club' : 'demo';
          await console.goto(`${server.url}/admin/accounts/${account}/${path}`);
          found.push(...(await axeViolations(console)).map((violation) => `${path}: ${violation}`));
        }
        expect(found).toEqual([]);
      }, 90_000);
    });

    it('has no serious or critical accessibility violation (axe-core) on the member pages', async () => {
      const page = await newPage();
      const found: string[] = [];
      for (const path of ['', '?action=reg', '?action=lost']) {
        await page.goto(`${server.url}/auth/demo/${path}`);
        found.push(...(await axeViolations(page)).map((violation) => `${path || 'sign-in'}: ${violation}`));
      }
      await signIn(page, 'ada');
      found.push(...(await axeViolations(page)).map((violation) => `profile: ${violation}`));
      await page.goto(`${server.url}/api2/reset-password/?account=demo&token=x`);
      found.push(...(await axeViolations(page)).map((violation) => `link: ${violation}`));
      expect(found).toEqual([]);
      expect(dialogs).toEqual([]);
    }, 60_000);
  });
}
