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

describeEachEngineApp('member-api webhook', (harness) => {
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
    expect((await cli(['webhook', 'add', '--account', user, '--url', receiver.url, '--events', 'member.nope'])).stderr).toMatch(/--events: member.nope is not an event type/);
    expect((await cli(['webhook', 'add', '--account', 'no-such-account', '--url', receiver.url])).stderr).toBe(`member-api: no account "no-such-account" in the store ${storeShown(harness().database.url)}\n`);

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
    expect(new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test', account: user });

    await harness().services.members.create(account, { login: 'hooked', email: 'h@example.com', password: 'hooked-password', urlOk: null, urlFail: null, ip: null, timeExpiry: null, loginExpiry: null, profile: new Map() }, { actor: 'api' });
    await harness().services.webhooks.dispatcher.run();
    const deliveries = JSON.parse((await cli(['webhook', 'deliveries', String(id), '--account', user, '--json'])).stdout) as { deliveries: Array<Record<string, unknown>> };
    expect(deliveries.deliveries).toEqual([expect.objectContaining({ event: '1', state: 'delivered', attempts: 1, attempt_log: [expect.objectContaining({ status: 200, error: null })] })]);

    expect((await cli(['webhook', 'remove', '99999', '--account', user])).stderr).toBe(`member-api: no webhook 99999 in account "${user}"\n`);
    expect((await cli(['webhook', 'remove', String(id), '--account', user])).stdout).toBe(`removed webhook ${id}\n`);
    expect(JSON.parse((await cli(['webhook', 'list', '--account', user, '--json'])).stdout)).toEqual({ webhooks: [] });
  });
}, { env: { WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' } });
