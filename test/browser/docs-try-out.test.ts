/**
 * The /docs page as a newcomer uses it, in a real Chromium: create a member with profile
 * fields, log it in, change one field of a member that has a status and a login allowance,
 * and list it. The page must send exactly what was filled in, nothing else.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, startServe, type Served } from '../support/cli.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// In CI a missing browser is a failure (the test runs and cannot launch), elsewhere a skip.
const canRun = existsSync(CHROMIUM) || Boolean(process.env.CI);

describe.skipIf(!canRun)('/docs: trying the API out in a browser', () => {
  let server: Served;
  let browser: Browser;
  let page: Page;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = join(mkdtempSync(join(tmpdir(), 'member-api-docs-')), 'docs.db');
    server = await startServe({ DATABASE_URL: databaseUrl });
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    await page.goto(`${server.url}/docs`);
    await page.waitForSelector('.opblock');
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    server.child.kill('SIGTERM');
    await exitOf(server.child);
  });

  /** Opens an operation, fills the named inputs (and nothing else), executes it: what was sent, and the answer. */
  async function tryOut(operation: string, path: string, inputs: Record<string, string>): Promise<{ sent: Record<string, string>; answer: any }> {
    const block = page.locator(`#operations-members-${operation}`);
    if (
      !(await block
        .locator('.opblock-body')
        .isVisible()
        .catch(() => false))
    )
      await block.locator('.opblock-summary').first().click();
    // The body renders after the click, later on a busy machine: wait for its button (it says
    // "Try it out", or "Cancel" when the operation was tried before) rather than count it now.
    const button = block.locator('.try-out__btn').first();
    await button.waitFor();
    if ((await button.textContent())?.includes('Try it out')) await button.click();
    for (const [name, value] of Object.entries(inputs)) {
      const row = block.locator(`tr[data-property-name="${name}"]`);
      const select = row.locator('select');
      if (await select.count()) await select.selectOption(value);
      else await row.locator('input:not([type=checkbox])').fill(value);
    }
    const [response] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === path && r.request().method() === 'POST'),
      block.locator('.execute').click(),
    ]);
    const sent = Object.fromEntries(new URLSearchParams(response.request().postData() ?? ''));
    return { sent, answer: await response.json() };
  }

  const key = () => server.demoKey();

  it('creates, logs in, changes one field without touching the rest, and lists, sending only what was filled in', async () => {
    const created = await tryOut('post_api2_create_', '/api2/create/', {
      user: 'demo',
      api_key: key(),
      _login: 'alice',
      _email: 'alice@example.com',
      _password: 'correct-horse',
      profile_fields: 'city=Paris&plan=gold',
    });
    expect(created.sent).toEqual({
      user: 'demo',
      api_key: key(),
      _login: 'alice',
      _email: 'alice@example.com',
      _password: 'correct-horse',
      city: 'Paris',
      plan: 'gold',
    });
    expect(created.answer).toMatchObject({ result: 'OK', login: 'alice', password: 'correct-horse' });

    const login = await tryOut('post_api2_login_', '/api2/login/', { user: 'demo', login: 'alice', password: 'correct-horse' });
    expect(login.sent).toEqual({ user: 'demo', login: 'alice', password: 'correct-horse' });
    expect(login.answer).toMatchObject({ result: 'OK' });

    // A member with state to lose: Suspended, with a login allowance of 3 and its own URL.
    const setUp = await fetch(`${server.url}/api2/update/`, {
      method: 'POST',
      body: new URLSearchParams({
        user: 'demo',
        api_key: key(),
        find_member_login: 'alice',
        status: 'S',
        is_exp_logins: 'S',
        exp_logins: '3',
        urlok: '/welcome',
      }),
    });
    expect(((await setUp.json()) as { result: string }).result).toBe('OK');
    const before = JSON.parse((await runCli(['member', 'show', 'alice', '--account', 'demo', '--json'], { DATABASE_URL: databaseUrl })).stdout);

    const updated = await tryOut('post_api2_update_', '/api2/update/', {
      user: 'demo',
      api_key: key(),
      find_member_login: 'alice',
      email: 'alice@new.example.com',
    });
    expect(updated.sent).toEqual({ user: 'demo', api_key: key(), find_member_login: 'alice', email: 'alice@new.example.com' });
    expect(updated.answer).toEqual({ result: 'OK', message: '', updated: 1 });
    const after = JSON.parse((await runCli(['member', 'show', 'alice', '--account', 'demo', '--json'], { DATABASE_URL: databaseUrl })).stdout);
    expect(after).toEqual({ ...before, email: 'alice@new.example.com' });
    expect(after).toMatchObject({ status: 'Suspended', exp_logins: '3', exp_logins_action: 'S', url_ok: '/welcome', profile: { city: 'Paris', plan: 'gold' } });

    const listed = await tryOut('post_api2_list_', '/api2/list/', {
      user: 'demo',
      api_key: key(),
      record: '{login}{email}{status}{city}',
      login_full: 'alice',
    });
    expect(listed.sent).toEqual({ user: 'demo', api_key: key(), record: '{login}{email}{status}{city}', login_full: 'alice' });
    expect(listed.answer).toEqual({ members: [{ login: 'alice', email: 'alice@new.example.com', status: 'Suspended', city: 'Paris' }], members_total: 1 });
    await page.screenshot({ path: join(tmpdir(), 'member-api-docs-try-out.png'), fullPage: false });
  }, 60_000);

  it('shows /create/ in its Curl box as a command that, pasted into a shell, sends every parameter', async () => {
    const inputs = { user: 'demo', api_key: key(), _login: 'pasted', _email: 'pasted@example.com', _password: 'pasted-password' };
    expect((await tryOut('post_api2_create_', '/api2/create/', inputs)).answer).toMatchObject({ result: 'OK', login: 'pasted' });
    const command = await page.locator('#operations-members-post_api2_create_ .curl-command pre.curl').innerText();
    // The same create again, from a shell: all of it arrives (an unquoted body split at its
    // first &, and curl sent `_login=pasted` alone: "missing parameter: user").
    const pasted = await promisify(execFile)('bash', ['-c', command]);
    expect(JSON.parse(pasted.stdout)).toEqual({ result: 'ERROR', message: 'login already taken' });
    // The account's parameters first, as in every example.
    expect(command).toContain(`-d 'user=demo&api_key=${key()}&`);
  }, 60_000);

  it('sends an empty value only when asked to, with (empty)', async () => {
    const cleared = await tryOut('post_api2_update_', '/api2/update/', {
      user: 'demo',
      api_key: key(),
      find_member_login: 'alice',
      email: '',
      urlok: '(empty)',
    });
    expect(cleared.sent).toEqual({ user: 'demo', api_key: key(), find_member_login: 'alice', urlok: '' });
    expect(cleared.answer).toMatchObject({ result: 'OK', updated: 1 });
    const shown = JSON.parse((await runCli(['member', 'show', 'alice', '--account', 'demo', '--json'], { DATABASE_URL: databaseUrl })).stdout);
    expect(shown).toMatchObject({ url_ok: null, email: 'alice@new.example.com' });
  }, 60_000);
});
