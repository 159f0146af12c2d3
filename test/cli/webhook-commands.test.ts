/**
 * `member-api webhook …` as an operator runs it: add (the secret shown once; a private
 * address refused unless allowed), list, test (a signed webhook.test reaches the receiver),
 * deliveries, remove, with clear errors.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { describeEachEngineApp } from '../support/app.js';
import { runCli } from '../support/cli.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { storeShown } from '../support/stores.js';

/** Where each of a table's columns starts, by its header. */
function columnStarts(header: string): Map<string, number> {
  return new Map([...header.matchAll(/\S+/g)].map((match) => [match[0], match.index]));
}

describeEachEngineApp(
  'member-api webhook',
  (harness) => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver.close();
    });

    it('adds, lists, tests, shows deliveries and removes a receiver', async () => {
      const { user, account } = await harness().newAccount();
      const strict = { DATABASE_URL: harness().database.url };
      const env = { ...strict, WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' };
      const cli = (args: string[], environment: Record<string, string> = env) => runCli(args, environment);

      const refused = await cli(['webhook', 'add', '--account', user, '--url', receiver.url], strict);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe('member-api: --url: 127.0.0.1: 127.0.0.1 is a loopback address; webhooks go to public addresses only\n');
      expect((await cli(['webhook', 'add', '--account', user, '--url', receiver.url, '--events', 'member.nope'])).stderr).toMatch(
        /--events: member.nope is not an event type/,
      );
      expect((await cli(['webhook', 'add', '--account', 'no-such-account', '--url', receiver.url])).stderr).toBe(
        `member-api: no account "no-such-account" in the store ${storeShown(harness().database.url)}\n`,
      );

      const added = await cli(['webhook', 'add', '--account', user, '--url', receiver.url, '--events', 'member.created,member.deleted', '--json']);
      expect(added.code, added.stderr).toBe(0);
      const { id, secret } = JSON.parse(added.stdout) as { id: number; secret: string };
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);

      const listed = JSON.parse((await cli(['webhook', 'list', '--account', user, '--json'])).stdout) as { webhooks: Array<Record<string, unknown>> };
      expect(listed.webhooks).toEqual([expect.objectContaining({ id, url: receiver.url, events: 'member.created,member.deleted', enabled: true })]);
      expect(JSON.stringify(listed)).not.toContain(secret);

      receiver.received.length = 0;
      const tested = await cli(['webhook', 'test', String(id), '--account', user, '--json']);
      expect(tested.code, tested.stderr).toBe(0);
      expect(JSON.parse(tested.stdout)).toMatchObject({ status: 200, error: null });
      // verify() throws unless the signature is right, and answers the parsed body.
      expect(new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>)).toMatchObject({
        type: 'webhook.test',
        account: user,
      });

      await harness().services.members.create(
        account,
        {
          login: 'hooked',
          email: 'h@example.com',
          password: 'hooked-password',
          urlOk: null,
          urlFail: null,
          ip: null,
          timeExpiry: null,
          loginExpiry: null,
          profile: new Map(),
        },
        { actor: 'api' },
      );
      await harness().services.webhooks.dispatcher.run();
      const deliveries = JSON.parse((await cli(['webhook', 'deliveries', String(id), '--account', user, '--json'])).stdout) as {
        deliveries: Array<Record<string, unknown>>;
      };
      expect(deliveries.deliveries).toEqual([
        expect.objectContaining({ event: '1', state: 'delivered', attempts: 1, attempt_log: [expect.objectContaining({ status: 200, error: null })] }),
      ]);

      expect((await cli(['webhook', 'remove', '99999', '--account', user])).stderr).toBe(`member-api: no webhook 99999 in account "${user}"\n`);
      expect((await cli(['webhook', 'remove', String(id), '--account', user])).stdout).toBe(`removed webhook ${id}\n`);
      expect(JSON.parse((await cli(['webhook', 'list', '--account', user, '--json'])).stdout)).toEqual({ webhooks: [] });
    });

    it('names a receiver with --name, shows the name in list, and takes it wherever an id is taken', async () => {
      const { user } = await harness().newAccount();
      const other = await harness().newAccount();
      const env = { DATABASE_URL: harness().database.url, WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' };
      const cli = (args: string[]) => runCli(args, env);

      const added = await cli(['webhook', 'add', '--account', user, '--url', receiver.url, '--name', 'crm', '--json']);
      expect(added.code, added.stderr).toBe(0);
      const { id, name } = JSON.parse(added.stdout) as { id: number; name: string };
      expect(name).toBe('crm');
      const unnamed = JSON.parse((await cli(['webhook', 'add', '--account', user, '--url', receiver.url, '--json'])).stdout) as {
        id: number;
        name: string | null;
      };
      expect(unnamed.name).toBeNull();

      // A bad name or one taken in the account is refused, naming the option; another account may have it.
      for (const [bad, reason] of [
        ['crm', '"crm" is the name of another webhook of this account'],
        ['42', '"42" is all digits, which is how an id is written: give a name with a letter in it'],
        ['a b', '"a b" is not a name: 1 to 64 of letters, digits, . _ -'],
        ['x'.repeat(65), `"${'x'.repeat(65)}" is not a name: 1 to 64 of letters, digits, . _ -`],
      ]) {
        expect(await cli(['webhook', 'add', '--account', user, '--url', receiver.url, '--name', bad!])).toMatchObject({
          code: 1,
          stderr: `member-api: --name: ${reason}\n`,
          stdout: '',
        });
      }
      const elsewhere = await cli(['webhook', 'add', '--account', other.user, '--url', receiver.url, '--name', 'crm', '--json']);
      expect(elsewhere.code, elsewhere.stderr).toBe(0);
      const elsewhereId = (JSON.parse(elsewhere.stdout) as { id: number }).id;

      const listed = JSON.parse((await cli(['webhook', 'list', '--account', user, '--json'])).stdout) as {
        webhooks: Array<{ id: number; name: string | null }>;
      };
      expect(listed.webhooks.map((w) => [w.id, w.name])).toEqual([
        [id, 'crm'],
        [unnamed.id, null],
      ]);
      const text = (await cli(['webhook', 'list', '--account', user])).stdout.split('\n');
      const starts = columnStarts(text[0]!);
      expect([...starts.keys()]).toEqual(['id', 'name', 'url', 'events', 'created_at', 'enabled', 'disabled_at', 'disabled_reason']);
      expect(text[1]!.slice(starts.get('name'), starts.get('url')).trim()).toBe('crm');
      expect(text[2]!.slice(starts.get('name'), starts.get('url')).trim()).toBe('-');

      // By name: test, deliveries, enable, remove; each in its own account only.
      receiver.received.length = 0;
      expect(JSON.parse((await cli(['webhook', 'test', 'crm', '--account', user, '--json'])).stdout)).toMatchObject({ status: 200 });
      expect(JSON.parse((await cli(['webhook', 'deliveries', 'crm', '--account', user, '--json'])).stdout)).toEqual({ deliveries: [] });
      expect((await cli(['webhook', 'enable', 'crm', '--account', user])).stdout).toBe('enabled webhook crm\n');
      expect(await cli(['webhook', 'remove', 'nope', '--account', user])).toMatchObject({
        code: 1,
        stderr: `member-api: no webhook named "nope" in account "${user}"\n`,
      });
      expect((await cli(['webhook', 'remove', 'crm', '--account', user])).stdout).toBe('removed webhook crm\n');
      expect(await cli(['webhook', 'remove', 'crm', '--account', user])).toMatchObject({
        code: 1,
        stderr: `member-api: no webhook named "crm" in account "${user}"\n`,
      });
      expect(
        (JSON.parse((await cli(['webhook', 'list', '--account', user, '--json'])).stdout) as { webhooks: Array<{ id: number }> }).webhooks.map((w) => w.id),
      ).toEqual([unnamed.id]);
      expect(
        (JSON.parse((await cli(['webhook', 'list', '--account', other.user, '--json'])).stdout) as { webhooks: Array<{ id: number }> }).webhooks.map(
          (w) => w.id,
        ),
      ).toEqual([elsewhereId]);
      // The name is free again once its receiver is gone.
      expect((await cli(['webhook', 'add', '--account', user, '--url', receiver.url, '--name', 'crm'])).code).toBe(0);
    });

    it('prints receivers and deliveries as tables with headers, every attempt readable, and says when the list was cut', async () => {
      const { user, account } = await harness().newAccount();
      const env = { DATABASE_URL: harness().database.url, WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' };
      const cli = (args: string[]) => runCli(args, env);
      expect((await cli(['webhook', 'add', '--account', user, '--url', receiver.url, '--name', 'shop-crm'])).code).toBe(0);
      for (const login of ['first', 'second']) {
        await harness().services.members.create(
          account,
          {
            login,
            email: `${login}@example.com`,
            password: 'hooked-password',
            urlOk: null,
            urlFail: null,
            ip: null,
            timeExpiry: null,
            loginExpiry: null,
            profile: new Map(),
          },
          { actor: 'api' },
        );
      }
      await harness().services.webhooks.dispatcher.run();

      const all = await cli(['webhook', 'deliveries', 'shop-crm', '--account', user]);
      expect(all.code, all.stderr).toBe(0);
      expect(all.stdout).not.toContain('[object Object]');
      const lines = all.stdout.trimEnd().split('\n');
      const starts = columnStarts(lines[0]!);
      expect([...starts.keys()]).toEqual(['id', 'event', 'state', 'attempts', 'next_at', 'delivered_at', 'last_error']);
      // Newest first; each cell under its header.
      expect(lines.slice(1, 3).map((line) => line.slice(starts.get('event'), starts.get('state')).trim())).toEqual(['2', '1']);
      expect(lines.slice(1, 3).map((line) => line.slice(starts.get('state'), starts.get('attempts')).trim())).toEqual(['delivered', 'delivered']);
      expect(lines[3]).toBe('');
      expect(lines[4]).toBe('attempts:');
      const attemptStarts = columnStarts(lines[5]!);
      expect([...attemptStarts.keys()]).toEqual(['delivery', 'at', 'status', 'duration_ms', 'error']);
      expect(lines.slice(6)).toHaveLength(2);
      for (const line of lines.slice(6)) {
        expect(line.slice(attemptStarts.get('at'), attemptStarts.get('status')).trim()).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
        expect(line.slice(attemptStarts.get('status'), attemptStarts.get('duration_ms')).trim()).toBe('200');
        expect(line.slice(attemptStarts.get('error')).trim()).toBe('-');
      }
      expect(all.stdout).not.toMatch(/showing/);

      // Cut: said after the table (and, with --json, on standard error, the JSON as it was).
      const cut = await cli(['webhook', 'deliveries', 'shop-crm', '--account', user, '--limit', '1']);
      expect(cut.stdout.trimEnd().split('\n').at(-1)).toBe('showing the newest 1; there are more deliveries (--limit 2 to see more)');
      expect(cut.stdout.split('\n').filter((line) => /^\d+ /.test(line))).toHaveLength(1);
      const cutJson = await cli(['webhook', 'deliveries', 'shop-crm', '--account', user, '--limit', '1', '--json']);
      expect((JSON.parse(cutJson.stdout) as { deliveries: unknown[] }).deliveries).toHaveLength(1);
      expect(cutJson.stderr).toBe('showing the newest 1; there are more deliveries (--limit 2 to see more)\n');
    });
  },
  { env: { WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' } },
);
