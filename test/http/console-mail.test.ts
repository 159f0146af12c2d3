/**
 * The console's mail page on both engines, with a real SMTP server: a template refused with
 * its reason and the text kept in the box, one saved (and used by the command line's service),
 * a test mail of the text in the box received with sample values, a mail server that refuses
 * said so, the built-in text back; and the page closed to editors and viewers.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { form, signedIn } from '../support/console.js';
import { apiAccount } from '../support/member-api.js';
import { startSmtp, type MailCatcher } from '../support/smtp.js';

describeEachEngineApp('the console’s mail page', (h) => {
  let smtp: MailCatcher;
  beforeAll(async () => {
    smtp = await startSmtp();
  });
  afterAll(async () => {
    await smtp.close();
  });

  it('checks, keeps and resets a template, and sends a test of the text in the box to the operator', async () => {
    const api = await apiAccount(h(), { smtpUrl: smtp.url, mailFrom: 'Site <no-reply@site.example>' });
    const owner = `owner-${api.user}@example.com`;
    const cookie = await signedIn(h(), owner, api.user, 'owner');
    const path = `/admin/accounts/${api.user}/mail`;
    const page = await h().request({ method: 'GET', url: path, headers: { cookie } });
    expect(page.status).toBe(200);
    expect(page.body.match(/<textarea name="text"/g)).toHaveLength(6);
    expect(page.body).toContain('the built-in text');

    // No subject line: refused, with the reason, and what was typed is still in the box.
    const bad = await form(h(), `${path}/welcome`, { do: 'save', text: 'Hello {{login}}' }, cookie);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/The welcome mail is not kept: [^<]*Subject/);
    expect(bad.body).toContain('aria-invalid="true">Hello {{login}}</textarea>');
    expect((await h().services.mailTemplates.text(api.account, 'welcome')).own).toBe(false);

    // A test of the text in the box, not kept: sent now, to the operator, with sample values.
    const text = 'Subject: Hi {{login}} from {{account}}\n\nConfirm here: {{verify_url}}\n';
    const tested = await form(h(), `${path}/welcome`, { do: 'test', text }, cookie);
    expect([tested.status, tested.headers.location]).toEqual([303, `${path}?done=test-mailed#welcome`]);
    const [mail] = (await smtp.waitFor(1)).filter((m) => m.to.includes(owner));
    expect(mail?.subject).toBe(`[test] Hi jane.sample from ${api.user}`);
    expect(mail?.text).toMatch(/Confirm here: \S+\/verify\/sample-link-of-a-test-mail/);
    expect((await h().services.mailTemplates.text(api.account, 'welcome')).own).toBe(false);

    // Saved: the page says it is the account's own, and the service (the command line's) reads it.
    const saved = await form(h(), `${path}/welcome`, { do: 'save', text }, cookie);
    expect([saved.status, saved.headers.location]).toEqual([303, `${path}?done=template-saved#welcome`]);
    expect(await h().services.mailTemplates.text(api.account, 'welcome')).toEqual({ text, own: true });
    const after = await h().request({ method: 'GET', url: `${path}?done=template-saved`, headers: { cookie } });
    expect(after.body).toContain('Saved: the mail uses this text from now on.');
    expect(after.body).toContain('the account’s own text');

    // A mail server that refuses: said on the page, the text kept in the box.
    smtp.refuse = 1;
    const refused = await form(h(), `${path}/reset`, { do: 'test', text: 'Subject: Reset\n\n{{reset_url}}\n' }, cookie);
    expect(refused.status).toBe(502);
    expect(refused.body).toMatch(/The test mail was not sent: [^<]*451/);

    // Back to the built-in text.
    const back = await form(h(), `${path}/welcome`, { do: 'default' }, cookie);
    expect(back.headers.location).toBe(`${path}?done=template-default#welcome`);
    expect((await h().services.mailTemplates.text(api.account, 'welcome')).own).toBe(false);

    // A text that is no template: the test is refused before anything is sent.
    const notTemplate = await form(h(), `${path}/welcome`, { do: 'test', text: 'no subject line' }, cookie);
    expect(notTemplate.status).toBe(400);
    expect(notTemplate.body).toContain('The welcome mail is not a template:');

    expect((await form(h(), `${path}/nonsense`, { do: 'save', text }, cookie)).status).toBe(404);
    expect((await form(h(), `${path}/welcome`, { do: 'nothing' }, cookie)).status).toBe(400);
  });

  it('says in one phrasing that no mail server was reached, whatever answered at the address: a closed port, another service, a hang-up', async () => {
    // What the test mail said of a port that is closed, one where another service greets with
    // its banner, and one that hangs up at once: one sentence, the port its only difference.
    const banner = createServer((socket) => socket.end('SSH-2.0-secret-banner-9.9\r\n'));
    const hangUp = createServer((socket) => socket.destroy());
    const closed = createServer();
    const ports: number[] = [];
    for (const server of [banner, hangUp, closed]) {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      ports.push((server.address() as AddressInfo).port);
    }
    await new Promise((resolve) => closed.close(resolve));
    try {
      const said: string[] = [];
      for (const port of ports) {
        // Set as the server's administrator sets it (the console refuses a private address).
        const api = await apiAccount(h(), { smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'site@example.com' });
        const cookie = await signedIn(h(), `owner-${api.user}@example.com`, api.user, 'owner');
        const tested = await form(h(), `/admin/accounts/${api.user}/mail/welcome`, { do: 'test', text: 'Subject: x\n\ny\n' }, cookie);
        expect(tested.status).toBe(502);
        expect(tested.body).not.toContain('secret-banner');
        said.push(/The test mail was not sent: [^<]*/.exec(tested.body)![0].replace(String(port), 'PORT'));
      }
      expect(said).toEqual(Array(3).fill('The test mail was not sent: no mail server could be reached at 127.0.0.1:PORT.'));
    } finally {
      for (const server of [banner, hangUp]) await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses a mail server on a loopback or private address set in the console, as a webhook’s; the command line may set one', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `owner-${api.user}@example.com`, api.user, 'owner');
    const settings = `/admin/accounts/${api.user}/settings`;
    for (const host of ['127.0.0.1:25', '[::1]:2525', '10.1.2.3', '192.168.0.10:587', 'localhost:25']) {
      const saved = await form(h(), settings, { 'smtp-url': `smtp://${host}` }, cookie);
      expect(saved.status, host).toBe(400);
      expect(saved.body).toMatch(/id="smtp-url-error">[^<]*(loopback|private)[^<]*from the console, the mail server must be on a public address/);
      expect((await h().services.accounts.find(api.user))!.settings.smtpUrl).toBe('');
    }
    // A public address is taken; the administrator's own (the command line's service) may be anything.
    const taken = await form(h(), settings, { 'smtp-url': 'smtp://93.184.216.34:587', 'mail-from': 'site@example.com' }, cookie);
    expect(taken.headers.location, /class="notice[^<]*/.exec(taken.body)?.[0]).toBe(`${settings}?done=saved`);
    expect((await h().services.accounts.change(api.user, { smtpUrl: 'smtp://127.0.0.1:25' })).kind).toBe('ok');
  });

  it('says there is no mail server, and is for owners only', async () => {
    const api = await apiAccount(h());
    const owner = await signedIn(h(), `owner-${api.user}@example.com`, api.user, 'owner');
    const path = `/admin/accounts/${api.user}/mail`;
    const page = await h().request({ method: 'GET', url: path, headers: { cookie: owner } });
    expect(page.body).toContain('The account has no mail server');
    const tested = await form(h(), `${path}/welcome`, { do: 'test', text: 'Subject: x\n\ny\n' }, owner);
    expect(tested.status).toBe(400);
    expect(tested.body).toContain('set smtp-url in the settings first');
    for (const role of ['viewer', 'editor'] as const) {
      const cookie = await signedIn(h(), `${role}-${api.user}@example.com`, api.user, role);
      expect((await h().request({ method: 'GET', url: path, headers: { cookie } })).status).toBe(403);
      const post = await form(h(), `${path}/welcome`, { do: 'save', text: 'Subject: x\n\ny\n' }, cookie);
      expect(post.status).toBe(403);
      expect(await h().services.mailTemplates.text(api.account, 'welcome')).toMatchObject({ own: false });
      // The account's pages they may open are in their navigation; the mail page is not.
      const members = await h().request({ method: 'GET', url: `/admin/accounts/${api.user}/members`, headers: { cookie } });
      expect(members.body).toContain(`/admin/accounts/${api.user}/overview"`);
      expect(members.body).not.toContain(`href="${path}"`);
    }
  });
});
