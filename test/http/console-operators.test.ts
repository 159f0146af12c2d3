/**
 * The console's operators over HTTP, on both engines: an owner's invitation never hands out a
 * link for an operator that exists (the way one account's owner took over another account's
 * operator), a new operator's link goes by mail, and with mail the answer is the same whether
 * the address was known; the sign-in's lockout holds against failures sent all at once; the
 * console's cookies are Secure whenever the request came over https.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngineApp, type Harness } from '../support/app.js';
import { addOperator, form, PASSWORD, signedIn } from '../support/console.js';
import { apiAccount } from '../support/member-api.js';
import { startSmtp, type MailCatcher } from '../support/smtp.js';

/** The operators page's answer to an invitation, the address written as EMAIL (what the inviter can compare). */
const inviteAnswer = async (h: Harness, account: string, cookie: string, email: string, role = 'owner') => {
  const reply = await form(h, `/admin/accounts/${account}/operators`, { email, role }, cookie);
  const notice = /<div class="notice[^>]*>([^<]*)</.exec(reply.body)?.[1] ?? '';
  return { status: reply.status, notice: notice.replaceAll(email, 'EMAIL'), link: /\/admin\/setup\?token=[\w-]+/.exec(reply.body)?.[0] };
};

describeEachEngineApp(
  'the console’s operators',
  (h) => {
    let smtp: MailCatcher;
    beforeAll(async () => {
      smtp = await startSmtp();
    });
    afterAll(async () => {
      await smtp.close();
    });

    it('never hands an owner a link for an operator that exists, with or without a password: the invitee’s own link keeps working', async () => {
      const victimAccount = await apiAccount(h());
      const attacker = await apiAccount(h());
      const owner = await signedIn(h(), `owner-${attacker.user}@example.com`, attacker.user, 'owner');
      // Invited to the victim's account (by its administrator), its link not used yet.
      const victim = `victim-${victimAccount.user}@example.com`;
      const victimToken = await addOperator(h(), victim, victimAccount.user, 'owner');
      // And one who has set a password.
      const settled = `settled-${victimAccount.user}@example.com`;
      await signedIn(h(), settled, victimAccount.user, 'owner');

      for (const email of [victim, settled]) {
        const answer = await inviteAnswer(h(), attacker.user, owner, email);
        expect(answer.status).toBe(200);
        expect(answer.link, email).toBeUndefined();
        expect(answer.notice).toContain('signs in with the password they already have');
      }
      // No mail was set for the attacker's account, and no link went anywhere: the victim's own works, once.
      const set = await form(h(), '/admin/setup', { token: victimToken, password: PASSWORD, confirm: PASSWORD });
      expect(set.headers.location).toBe('/admin/');
      // A brand-new address, with no mail: its link is shown, as the only way it reaches its operator.
      const fresh = await inviteAnswer(h(), attacker.user, owner, `new-${attacker.user}@example.com`, 'viewer');
      expect(fresh.link).toMatch(/^\/admin\/setup\?token=/);
    });

    it('mails a new operator its link, tells one that exists of the account, and answers the owner alike for both', async () => {
      const other = await apiAccount(h());
      const api = await apiAccount(h(), { smtpUrl: smtp.url, mailFrom: 'console@site.example' });
      const owner = await signedIn(h(), `owner-${api.user}@example.com`, api.user, 'owner');
      const existing = `existing-${other.user}@example.com`;
      const existingToken = await addOperator(h(), existing, other.user, 'owner');
      const fresh = `fresh-${api.user}@example.com`;

      const known = await inviteAnswer(h(), api.user, owner, existing, 'editor');
      const unknown = await inviteAnswer(h(), api.user, owner, fresh, 'editor');
      expect(known).toEqual(unknown);
      expect(unknown).toEqual({ status: 200, notice: `EMAIL is invited as editor on ${api.user}: the invitation is on its way by mail.`, link: undefined });

      await h().services.mailer.run();
      const mails = await smtp.waitFor(2);
      const invitation = mails.find((mail) => mail.to.includes(fresh))!;
      expect(invitation.subject).toBe(`You are invited to the console of ${api.user}`);
      expect(invitation.text).toContain(`owner-${api.user}@example.com invited you`);
      // Without PUBLIC_URL, the mail carries the path, and says the address is not configured.
      const token = /\/admin\/setup\?token=([\w-]+) \(this server's public address is not configured/.exec(invitation.text)?.[1];
      expect(token).toBeDefined();
      const access = mails.find((mail) => mail.to.includes(existing))!;
      expect(access.subject).toBe(`${api.user} is now in your console`);
      expect(access.text).not.toContain('token=');
      // The mailed link sets the new operator's password; the one that existed keeps its own.
      expect((await form(h(), '/admin/setup', { token: token!, password: PASSWORD, confirm: PASSWORD })).headers.location).toBe('/admin/');
      expect((await form(h(), '/admin/setup', { token: existingToken, password: PASSWORD, confirm: PASSWORD })).headers.location).toBe('/admin/');
      const page = await h().request({ method: 'GET', url: `/admin/accounts/${api.user}/operators`, headers: { cookie: owner } });
      expect(page.body).toContain(fresh);
      expect(page.body).toContain(existing);
      expect(page.body).not.toContain('token=');
    });

    it('refuses a right password that finishes after failures sent at once have locked the operator, and keeps the lock', async () => {
      const api = await apiAccount(h());
      const email = `raced-${api.user}@example.com`;
      await signedIn(h(), email, api.user, 'owner');
      // Sixty wrong passwords at once, then the right one: every verification queues at the
      // hashing gate, the right one last; by the time it is verified the 30th failure has locked.
      const wrong = Array.from({ length: 60 }, () => form(h(), '/admin/sign-in', { email, password: 'wrong-password-here' }));
      const right = form(h(), '/admin/sign-in', { email, password: PASSWORD });
      const answers = await Promise.all([...wrong, right]);
      expect(answers.at(-1)!.status).toBe(401);
      expect(answers.slice(0, 60).every((answer) => answer.status === 401)).toBe(true);
      // The lock stays: the right password alone is refused now too.
      expect((await form(h(), '/admin/sign-in', { email, password: PASSWORD })).status).toBe(401);
      const credentials = await h().store.operators.credentials(email);
      expect(credentials!.lockedUntil).toBeGreaterThan(Date.now());
    });

    it('sets the console’s cookies Secure when the request came over https through a trusted proxy, without PUBLIC_URL', async () => {
      const api = await apiAccount(h());
      const email = `secure-${api.user}@example.com`;
      const token = await addOperator(h(), email, api.user, 'owner');
      const https = { 'x-forwarded-proto': 'https' };
      const set = await h().request({
        url: '/admin/setup',
        payload: new URLSearchParams({ token, password: PASSWORD, confirm: PASSWORD }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...https },
      });
      expect(String(set.headers['set-cookie'])).toMatch(/^console_session=[^;]+;.*; Secure/);
      const signIn = await h().request({
        url: '/admin/sign-in',
        payload: new URLSearchParams({ email, password: PASSWORD }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...https },
      });
      expect(String(signIn.headers['set-cookie'])).toMatch(/; Secure/);
      // Over plain http: not Secure (a browser would not send it back).
      const plain = await form(h(), '/admin/sign-in', { email, password: PASSWORD });
      expect(String(plain.headers['set-cookie'])).not.toMatch(/Secure/);
    });
  },
  { env: { TRUST_PROXY: 'true' } },
);
