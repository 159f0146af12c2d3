import { afterAll, beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';
import { form, signedIn } from '../support/console.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { openStore } from '../../src/store/store.js';
import { servicesOver } from '../../src/compose.js';
import { loadConfig } from '../../src/config.js';
import { WebhooksService } from '../../src/webhooks/webhooks-service.js';
import { WebhookSender } from '../../src/webhooks/sender.js';
import { refusedAddress } from '../../src/webhooks/address-guard.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

describeEachEngineApp(
  'webhooks',
  (h) => {
    async function withHook(types?: string[]) {
      const api = await apiAccount(h());
      const added = await h().services.webhooks.endpoints.add(api.account, receiver.url, types);
      if (added.kind !== 'added') throw new Error(added.reason);
      receiver.received.length = 0;
      receiver.answer = 200;
      return { api, endpoint: added.endpoint };
    }
    const bodies = () => receiver.received.map((r) => JSON.parse(r.body) as { id: string; type: string; member?: { login: string } });

    it('delivers every event, in order, signed as Standard Webhooks says, the body the feed’s event', async () => {
      const { api, endpoint } = await withHook();
      expect(endpoint.secret).toMatch(/^whsec_/);
      await api.create('ann');
      await api.update({ find_member_login: 'ann', status: 'S' });
      await h().services.webhooks.dispatcher.run();
      expect(bodies().map((b) => b.type)).toEqual(['member.created', 'member.updated', 'member.status_changed']);
      const verifier = new Webhook(endpoint.secret);
      for (const request of receiver.received) {
        // Throws unless the signature and the timestamp are right.
        verifier.verify(request.body, request.headers as Record<string, string>);
        expect(request.headers['content-type']).toBe('application/json');
      }
      const feed = await api.events();
      expect(bodies()).toEqual(feed.events);
      expect(() =>
        new Webhook(`whsec_${Buffer.from('another secret of 24 bytes').toString('base64')}`).verify(
          receiver.received[0]!.body,
          receiver.received[0]!.headers as Record<string, string>,
        ),
      ).toThrow();
      // Nothing twice: a second round has nothing to send.
      await h().services.webhooks.dispatcher.run();
      expect(receiver.received).toHaveLength(3);
    });

    it('lets an owner add a webhook in the console, test it, see a delivery with its attempts, send it again, and remove it', async () => {
      const api = await apiAccount(h());
      const owner = await signedIn(h(), `hooks-${api.user}@example.com`, api.user, 'owner');
      const path = `/admin/accounts/${api.user}/webhooks`;
      receiver.received.length = 0;
      receiver.answer = 200;
      expect((await form(h(), `${path}/add`, { url: 'ftp://example.com/x' }, owner)).body).toContain('url: http or https only.');
      const added = await form(h(), `${path}/add`, { url: receiver.url, name: 'crm', events: 'member.created' }, owner);
      const secret = /<code class="secret">(whsec_[^<]+)<\/code>/.exec(added.body)![1]!;
      const endpoint = (await h().services.webhooks.endpoints.named(api.account, 'crm'))!;
      expect(endpoint.secret).toBe(secret);
      expect((await h().request({ method: 'GET', url: path, headers: { cookie: owner } })).body).not.toContain(secret);

      // A test message, signed with that secret.
      const tested = await form(h(), `${path}/test`, { id: String(endpoint.id) }, owner);
      expect(tested.body).toContain(`Test message to ${receiver.url}: `);
      expect(JSON.parse(receiver.received.at(-1)!.body)).toMatchObject({ type: 'webhook.test' });
      new Webhook(secret).verify(receiver.received.at(-1)!.body, receiver.received.at(-1)!.headers as Record<string, string>);

      // A member created: one delivery, its attempt shown; sent again, it arrives twice.
      await api.create('hooked');
      await h().services.webhooks.dispatcher.run();
      const deliveries = (await h().request({ method: 'GET', url: `${path}/${endpoint.id}`, headers: { cookie: owner } })).body;
      expect(deliveries).toMatch(/<td>delivered \(/);
      expect(deliveries).toMatch(/<li>[^<]*: 200, \d+ ms<\/li>/);
      const delivery = /name="delivery" value="(\d+)"/.exec(deliveries)![1]!;
      const again = await form(h(), `${path}/${endpoint.id}/redeliver`, { delivery }, owner);
      expect(again.headers.location).toBe(`${path}/${endpoint.id}?done=redelivered`);
      await h().services.webhooks.dispatcher.run();
      expect(receiver.received.filter((r) => (JSON.parse(r.body) as { type: string }).type === 'member.created')).toHaveLength(2);

      // Removed after asking.
      expect((await form(h(), `${path}/remove`, { id: String(endpoint.id) }, owner)).body).toContain('Remove the webhook?');
      expect((await form(h(), `${path}/remove`, { id: String(endpoint.id), confirm: '1' }, owner)).headers.location).toBe(`${path}?done=webhook-removed`);
      expect(await h().services.webhooks.endpoints.list(api.account)).toEqual([]);
      const editor = await signedIn(h(), `hooks-editor-${api.user}@example.com`, api.user, 'editor');
      expect((await h().request({ method: 'GET', url: path, headers: { cookie: editor } })).status).toBe(403);
    });

    it('sends only the types asked for', async () => {
      const { api } = await withHook(['member.status_changed']);
      await api.create('bo');
      await api.update({ find_member_login: 'bo', status: 'S' });
      await h().services.webhooks.dispatcher.run();
      expect(bodies().map((b) => b.type)).toEqual(['member.status_changed']);
    });

    it('retries a failing receiver with backoff, holding later events back, and records every attempt', async () => {
      const { api, endpoint } = await withHook();
      receiver.answer = (_, index) => (index < 3 ? 503 : 200);
      await api.create('cy');
      await api.create('di');
      const dispatcher = h().services.webhooks.dispatcher;
      await dispatcher.run();
      expect(bodies().map((b) => b.member?.login)).toEqual(['cy']);
      // Not due yet: nothing is sent.
      await dispatcher.run();
      expect(receiver.received).toHaveLength(1);
      h().clock.advance(7_000);
      await dispatcher.run();
      h().clock.advance(400_000);
      await dispatcher.run();
      h().clock.advance(2_200_000);
      await dispatcher.run();
      // Three failures of cy, then cy and, only then, di.
      expect(bodies().map((b) => b.member?.login)).toEqual(['cy', 'cy', 'cy', 'cy', 'di']);
      const deliveries = (await h().services.webhooks.endpoints.deliveries(api.account, endpoint.id, 10))!;
      const cy = deliveries.find((d) => d.eventId === 1)!;
      expect(cy).toMatchObject({ state: 'delivered', attempts: 4, lastError: null });
      expect(cy.attemptsMade.map((a) => a.statusCode)).toEqual([503, 503, 503, 200]);
      expect(cy.attemptsMade.map((a) => a.error)).toEqual(['HTTP 503', 'HTTP 503', 'HTTP 503', null]);
      expect(deliveries.find((d) => d.eventId === 2)).toMatchObject({ state: 'delivered', attempts: 1 });
    });

    it('does not follow a redirect; sends a delivery again on demand', async () => {
      const { api, endpoint } = await withHook();
      receiver.answer = 302;
      await api.create('ed');
      await h().services.webhooks.dispatcher.run();
      const [delivery] = (await h().services.webhooks.endpoints.deliveries(api.account, endpoint.id, 10))!;
      expect(delivery).toMatchObject({ state: 'pending', attempts: 1, lastError: 'HTTP 302 (redirects are not followed)' });
      receiver.answer = 200;
      expect(await h().services.webhooks.endpoints.redeliver(api.account, delivery!.id)).toBe(true);
      await h().services.webhooks.dispatcher.run();
      expect(receiver.received).toHaveLength(2);
      expect((await h().services.webhooks.endpoints.deliveries(api.account, endpoint.id, 10))![0]).toMatchObject({ state: 'delivered', attempts: 2 });
    });

    it('with two servers on one store, sends each event once per attempt', async () => {
      const { api } = await withHook();
      const store = openStore(h().database.url);
      const second = await servicesOver(store, { config: loadConfig({ WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' }) });
      try {
        for (let i = 0; i < 30; i++) await api.create(`two${i}`);
        await Promise.all([
          h().services.webhooks.dispatcher.run(),
          second.webhooks.dispatcher.run(),
          h().services.webhooks.dispatcher.run(),
          second.webhooks.dispatcher.run(),
        ]);
        for (let i = 0; i < 5; i++) await Promise.all([h().services.webhooks.dispatcher.run(), second.webhooks.dispatcher.run()]);
        const ids = receiver.received.map((r) => r.headers['webhook-id']);
        expect(ids).toHaveLength(30);
        expect(new Set(ids).size).toBe(30);
        expect(bodies().map((b) => b.member?.login)).toEqual(Array.from({ length: 30 }, (_, i) => `two${i}`));
      } finally {
        second.webhooks.sender.close();
        await store.close();
      }
    });

    it('refuses receivers on loopback, private, link-local and other non-public addresses, at add and at delivery', async () => {
      const api = await apiAccount(h());
      const strict = new WebhooksService(h().store.webhooks, new WebhookSender(false), h().clock.now, false);
      for (const url of [
        'http://127.0.0.1/hook',
        'http://localhost/hook',
        'http://10.1.2.3/hook',
        'http://172.16.0.1/hook',
        'http://192.168.1.1/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://100.64.0.1/hook',
        'http://0.0.0.0/hook',
        'http://[::1]/hook',
        'http://[fe80::1]/hook',
        'http://[fc00::1]/hook',
        'http://[::ffff:127.0.0.1]/hook',
        'http://224.0.0.1/hook',
      ]) {
        const outcome = await strict.add(api.account, url, undefined);
        expect(outcome, url).toMatchObject({ kind: 'refused', parameter: 'url', reason: expect.stringMatching(/address/) });
      }
      expect(await strict.add(api.account, 'ftp://example.com/x', undefined)).toMatchObject({ kind: 'refused', parameter: 'url' });
      expect(refusedAddress('93.184.216.34')).toBeUndefined();
      // At delivery: DNS may have changed since; the connection's own look-up is checked.
      const sender = new WebhookSender(false);
      try {
        const attempt = await sender.send(receiver.url, `whsec_${Buffer.from('x'.repeat(24)).toString('base64')}`, 'msg_1', '{}', new Date());
        expect(attempt.statusCode).toBeNull();
        expect(attempt.error).toMatch(/127\.0\.0\.1 is a loopback address/);
      } finally {
        sender.close();
      }
    });

    it('disables an endpoint whose delivery failed for days; enable turns it back on', async () => {
      const { api, endpoint } = await withHook();
      receiver.answer = 500;
      await api.create('fay');
      const dispatcher = h().services.webhooks.dispatcher;
      for (let i = 0; i < 12; i++) {
        await dispatcher.run();
        h().clock.advance(13 * 3_600_000);
      }
      const [found] = await h().services.webhooks.endpoints.list(api.account);
      expect(found!.disabledAt).not.toBeNull();
      expect(found!.disabledReason).toMatch(/failed 12 times/);
      expect(receiver.received).toHaveLength(12);
      expect(await h().services.webhooks.endpoints.enable(api.account, endpoint.id)).toBe(true);
      expect((await h().services.webhooks.endpoints.list(api.account))[0]!.disabledAt).toBeNull();
    });
  },
  { env: { WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true' } },
);
