/**
 * An endpoint's deliveries are leased by one server at a time: a compare-and-set on the
 * endpoint's row that its holder renews, and that runs out by itself when its holder died.
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { insertAccount } from '../support/factories.js';

describeEachEngine('webhook endpoint leases', (context) => {
  it('is held by one server at a time, renewed only by its holder, and free again when it runs out or is given back', async () => {
    const { store } = context();
    const accountId = (await insertAccount(store)).id;
    const endpoint = await store.webhooks.insertEndpoint({
      accountId,
      name: null,
      url: 'https://example.com/hook',
      secret: 'whsec_x',
      types: undefined,
      createdAt: 1_000,
    });
    expect(await store.webhooks.lease(endpoint.id, 1_000, 31_000)).toBe(true);
    // Another server, before the lease ends: refused.
    expect(await store.webhooks.lease(endpoint.id, 20_000, 50_000)).toBe(false);
    // A renewal by a server that does not hold it (it names another end) changes nothing.
    expect(await store.webhooks.renewLease(endpoint.id, 99_000, 60_000)).toBe(false);
    expect(await store.webhooks.renewLease(endpoint.id, 31_000, 46_000)).toBe(true);
    expect(await store.webhooks.lease(endpoint.id, 40_000, 70_000)).toBe(false);
    // Its holder died: once the lease ran out another server takes it, and the dead one's
    // release (were it to come) does not free the new holder's lease.
    expect(await store.webhooks.lease(endpoint.id, 46_000, 76_000)).toBe(true);
    await store.webhooks.release(endpoint.id, 46_000);
    expect(await store.webhooks.lease(endpoint.id, 50_000, 80_000)).toBe(false);
    await store.webhooks.release(endpoint.id, 76_000);
    expect(await store.webhooks.lease(endpoint.id, 50_000, 80_000)).toBe(true);
  });
});
