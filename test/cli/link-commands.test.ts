/**
 * The move on the command line, as an operator runs it: `account link`, `migrate-members`,
 * `account link-status`, `account unlink`, against a second server of this project as the
 * upstream. The upstream's key is never printed back.
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { cheapHash, startUpstream, type Upstream } from '../support/upstream.js';

describeEachEngineApp('member-api account link, migrate-members', (harness) => {
  let upstream: Upstream;

  beforeAll(async () => {
    upstream = await startUpstream(harness().database.engine);
    await upstream.importRows(
      Array.from({ length: 30 }, (_, i) => ({
        id: String(2_000_000 + i),
        login: `u${i}`,
        email: `u${i}@example.org`,
        password_hash: cheapHash(`pw-${i}`),
        team: `t${i % 3}`,
      })),
    );
  }, 60_000);

  afterAll(async () => {
    await upstream?.close();
  });

  it('links, migrates, reports and unlinks, with clear errors and the key never shown', async () => {
    const { user } = await harness().newAccount();
    const env = { DATABASE_URL: harness().database.url };
    const cli = (args: string[]) => runCli(args, env);

    const notLinked = await cli(['migrate-members', user]);
    expect(notLinked.code).toBe(1);
    expect(notLinked.stderr).toBe(`member-api: account "${user}" is not linked (member-api account link ${user} --upstream-url …)\n`);

    const wrongKey = await cli(['account', 'link', user, '--upstream-url', upstream.url, '--upstream-user', upstream.user, '--upstream-key', 'wrong-key-123']);
    expect(wrongKey.stderr).toBe('member-api: the upstream did not answer its /list/ with these credentials (wrong api key); nothing changed\n');
    const badUrl = await cli(['account', 'link', user, '--upstream-url', 'members.example.com', '--upstream-user', 'x', '--upstream-key', 'y']);
    expect(badUrl.stderr).toBe('member-api: invalid --upstream-url: not a URL\n');

    const linked = await cli([
      'account',
      'link',
      user,
      '--upstream-url',
      upstream.url,
      '--upstream-user',
      upstream.user,
      '--upstream-key',
      upstream.apiKey,
      '--json',
    ]);
    expect(JSON.parse(linked.stdout)).toEqual({ account: user, linked: true, upstream_members: 30 });

    const dry = JSON.parse((await cli(['migrate-members', user, '--fields', 'team', '--dry-run', '--json'])).stdout);
    expect(dry).toMatchObject({ read: 30, imported: 30, dryRun: true });
    const migrated = await cli(['migrate-members', user, '--fields', 'team']);
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toMatch(/^every member: 30 read from the upstream in [\d.]+ s \(\d+ members\/s\)\n {2}new +30 +\(each waits/);

    expect((await harness().post('/api2/login/', { user, login: 'u3', password: 'pw-3' })).json.result).toBe('OK');
    const status = await cli(['account', 'link-status', user, '--json']);
    expect(JSON.parse(status.stdout)).toMatchObject({
      account: user,
      upstream: upstream.url.replace(/\/api2$/, ''),
      members_migrated: 30,
      passwords_captured: 1,
      members_waiting: 29,
      interrupted_run: null,
      upstream_errors: 0,
    });
    const text = await cli(['account', 'link-status', user]);
    expect(text.stdout).toMatch(/^account {14}\S+\nupstream {13}http:\/\/127\.0\.0\.1:\d+\n/);
    for (const output of [linked, migrated, status, text]) expect(output.stdout + output.stderr).not.toContain(upstream.apiKey);

    const badFields = await cli(['migrate-members', user, '--fields', 'team,{x}']);
    expect(badFields.stderr).toBe('member-api: --fields: "{x}" is not a profile field name\n');

    const unlinked = await cli(['account', 'unlink', user]);
    expect(unlinked.stdout).toBe(`unlinked account "${user}"; 29 members never logged in since the move and need a password reset\n`);
    expect((await cli(['account', 'link-status', user])).stderr).toBe(`member-api: account "${user}" is not linked\n`);
  }, 60_000);

  it('writes the members it cannot take to a rejects file, as the upstream listed them, and goes on', async () => {
    // A hosted original whose rules differ from ours: its list holds a login we refuse.
    const listed = [
      { id: '3000001', login: 'fine', email: 'fine@example.org', status: 'Active', reg_type: 'Paid', reg_time: '2025-01-02 03:04:05' },
      { id: '3000002', login: 'has space', email: 'space@example.org', status: 'Active', reg_type: 'Free', reg_time: '2025-01-02 03:04:05' },
    ];
    // It lists its members as the original does: none when asked for Deleted ones (status=D).
    const hosted = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const members = new URLSearchParams(body).get('status') === 'D' ? [] : listed;
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ members_total: members.length, members }));
      });
    });
    await new Promise<void>((resolve) => hosted.listen(0, '127.0.0.1', resolve));
    try {
      const { user } = await harness().newAccount();
      const env = { DATABASE_URL: harness().database.url };
      const url = `http://127.0.0.1:${(hosted.address() as { port: number }).port}/api2`;
      expect((await runCli(['account', 'link', user, '--upstream-url', url, '--upstream-user', 'x', '--upstream-key', 'y'], env)).code).toBe(0);
      const rejects = join(mkdtempSync(join(tmpdir(), 'member-api-rejects-')), 'rejected.jsonl');
      const run = await runCli(['migrate-members', user, '--rejects', rejects], env);
      expect(run.stdout).toContain(`  rejected         1   members written to ${rejects}, with _reason`);
      expect(readFileSync(rejects, 'utf8')).toBe(`${JSON.stringify({ ...listed[1], _reason: 'invalid login' })}\n`);
      // Only its owner may read it (it holds what the upstream listed); a rerun keeps it, and says so.
      expect(statSync(rejects).mode & 0o777).toBe(0o600);
      const again = await runCli(['migrate-members', user, '--rejects', rejects], env);
      expect(again).toMatchObject({
        code: 1,
        stderr: `member-api: the rejects file "${rejects}" already exists (a file or a link): remove it or choose another name with --rejects FILE; it is never written over\n`,
      });
      expect(readFileSync(rejects, 'utf8')).toBe(`${JSON.stringify({ ...listed[1], _reason: 'invalid login' })}\n`);
      expect((await harness().post('/api2/login/', { user, login: 'fine', password: 'anything' })).json.result).toBe('FAIL');
    } finally {
      await new Promise((resolve) => hosted.close(resolve));
    }
  });
});
