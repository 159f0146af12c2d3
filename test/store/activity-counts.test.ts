/**
 * The console's activity counts are held in memory and written together within a second: on
 * their own, before a read of them, and when the store closes.
 */
import { expect, it } from 'vitest';
import { openStore } from '../../src/store/store.js';
import { describeEachEngine } from '../support/engines.js';
import { insertAccount } from '../support/factories.js';
import { peek } from '../support/peek.js';

const HOUR = 3_600_000;

describeEachEngine('the activity counts', (context) => {
  const written = (accountId: number) =>
    peek(context().database, (db) =>
      db.selectFrom('activity_counts').select(['hour', 'kind', 'n']).where('account_id', '=', accountId).orderBy('hour').orderBy('kind').execute(),
    );

  it('are written within a second on their own, added to what the hour holds', async () => {
    const { store } = context();
    const account = await insertAccount(store);
    const at = Date.UTC(2026, 10, 28, 10, 15);
    for (let i = 0; i < 3; i++) await store.overview.count(account.id, 'login-ok', at);
    await store.overview.count(account.id, 'registered', at + HOUR);
    await expect.poll(() => written(account.id), { timeout: 10_000, interval: 200 }).toHaveLength(2);
    await store.overview.count(account.id, 'login-ok', at + 60_000);
    expect(await store.overview.activitySince(account.id, 0)).toEqual([
      { hour: Date.UTC(2026, 10, 28, 10), kind: 'login-ok', n: 4 },
      { hour: Date.UTC(2026, 10, 28, 11), kind: 'registered', n: 1 },
    ]);
  });

  it('are written when the store closes', async () => {
    const { store, database } = context();
    const account = await insertAccount(store);
    const other = openStore(database.url);
    await other.overview.count(account.id, 'login-failed', Date.UTC(2026, 10, 28, 9));
    await other.close();
    expect(await written(account.id)).toEqual([{ hour: Date.UTC(2026, 10, 28, 9), kind: 'login-failed', n: 1 }]);
  });
});
