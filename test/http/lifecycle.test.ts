import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';
import { peek } from '../support/peek.js';

const DAY = 86_400_000;

describeEachEngineApp('member lifecycle', (h) => {
  it('the sweep writes down due expirations, dating a deletion at the moment it expired', async () => {
    const api = await apiAccount(h());
    h().clock.set('2026-10-01T00:00:00Z');
    await api.create('sweep-s', { set_is_exp_time: '1', set_exp_time: '1', set_exp_time_type: 'D' });
    await api.create('sweep-d', { set_is_exp_time: '2', set_exp_time: '1', set_exp_time_type: 'D' });
    await api.create('sweep-later', { set_is_exp_time: '2', set_exp_time: '3', set_exp_time_type: 'D' });
    await api.insert({ login: 'already-s', status: 'S', timeExpiry: { action: 'D', at: Date.parse('2026-10-01T12:00:00Z') } });
    h().clock.set('2026-10-02T06:00:00Z');
    const report = await h().services.sweeper.sweep();
    expect(report?.expired).toBeGreaterThanOrEqual(2);
    expect(await api.member('sweep-s')).toMatchObject({ status: 'S', deletedAt: null });
    expect(await api.member('sweep-d')).toMatchObject({ status: 'D', deletedAt: Date.parse('2026-10-02T00:00:00Z') });
    expect((await api.member('sweep-later'))?.status).toBe('A');
    // Only Active members expire.
    expect(await api.member('already-s')).toMatchObject({ status: 'S', deletedAt: null });
  });

  it('keeps a Deleted member and its login for the retention period, then purges it and frees the login', async () => {
    const api = await apiAccount(h());
    h().clock.set('2026-01-01T00:00:00Z');
    await api.create('tomb', { city: 'Oslo' });
    await api.login('tomb');
    await api.update({ find_member_login: 'tomb', status: 'D' });
    h().clock.advance(30 * DAY - 1000);
    await h().services.sweeper.sweep();
    expect((await api.member('tomb'))?.status).toBe('D');
    expect((await h().post('/api2/create/', { user: api.user, api_key: api.apiKey, _login: 'tomb', _email: 't@example.com' })).json.message).toBe(
      'login already taken',
    );
    h().clock.advance(2000);
    expect((await h().services.sweeper.sweep())?.purgedMembers).toBeGreaterThanOrEqual(1);
    expect(await api.member('tomb')).toBeUndefined();
    const again = await api.create('tomb');
    expect(await api.profile('tomb')).toEqual(new Map());
    expect(Number(again.id)).toBeGreaterThan(0);
  });

  it('purges sessions and login events after their retention', async () => {
    const api = await apiAccount(h());
    h().clock.set('2026-02-01T00:00:00Z');
    await api.create('sess');
    await h().post('/api2/login/', { user: api.user, login: 'sess', password: 'correct-horse', IP: '192.0.2.9', api_key: api.apiKey });
    const count = (table: 'sessions' | 'login_events') =>
      peek(h().database, async (db) =>
        Number(
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .where('account_id', '=', api.account.id)
              .executeTakeFirstOrThrow()
          ).n,
        ),
      );
    expect(await count('sessions')).toBe(1);
    expect(await count('login_events')).toBe(1);
    h().clock.advance(31 * DAY);
    await h().services.sweeper.sweep();
    expect(await count('sessions')).toBe(0);
    expect(await count('login_events')).toBe(1);
    h().clock.advance(60 * DAY);
    await h().services.sweeper.sweep();
    expect(await count('login_events')).toBe(0);
  });
});
