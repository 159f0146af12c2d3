import { expect, it } from 'vitest';
import { AccountsService } from '../../src/accounts/accounts-service.js';
import { describeEachEngine } from '../support/engines.js';
import { uniqueName } from '../support/factories.js';

describeEachEngine('accounts service', (context) => {
  const service = () => new AccountsService(context().store.accounts, () => 1_700_000_000_000);

  it('creates an account whose key authenticates it, and only it', async () => {
    const created = await service().create(uniqueName(), { okUrl: '/in' });
    expect(created.kind).toBe('created');
    if (created.kind !== 'created') return;
    expect(created.account.settings.okUrl).toBe('/in');
    expect((await service().authenticate(created.account.name, created.apiKey))?.account.id).toBe(created.account.id);
    expect((await service().keys(created.account.name))?.keys.map((k) => k.digest)).not.toContain(created.apiKey);
    const other = await service().create(uniqueName());
    if (other.kind !== 'created') throw new Error('not created');
    expect(await service().authenticate(created.account.name, other.apiKey)).toBeUndefined();
    expect(await service().authenticate(other.account.name, created.apiKey)).toBeUndefined();
    expect(await service().authenticate('no-such-name', created.apiKey)).toBeUndefined();
    expect(await service().authenticate(created.account.name, undefined)).toBeUndefined();
    expect(await service().authenticate(undefined, created.apiKey)).toBeUndefined();
  });

  it('refuses a bad name, a bad setting and a taken name', async () => {
    expect(await service().create('AB')).toMatchObject({ kind: 'invalid', setting: 'name' });
    expect(await service().create('not a name')).toMatchObject({ kind: 'invalid', setting: 'name' });
    expect(await service().create('x'.repeat(65))).toMatchObject({ kind: 'invalid', setting: 'name' });
    expect(await service().create(uniqueName(), { timeZone: 'Nowhere' })).toMatchObject({ kind: 'invalid', setting: 'time-zone' });
    const name = uniqueName();
    await service().create(name);
    expect(await service().create(name)).toEqual({ kind: 'name-taken' });
    // Whatever the case: an account's name is one name (the original's keep their capitals).
    expect(await service().create(name.toUpperCase())).toEqual({ kind: 'name-taken' });
  });

  it('rotates a key: without grace the old one stops working at once', async () => {
    const created = await service().create(uniqueName());
    if (created.kind !== 'created') throw new Error('not created');
    const rotated = await service().rotateKey(created.account.name);
    if (rotated.kind !== 'issued') throw new Error('not rotated');
    expect(await service().authenticate(created.account.name, created.apiKey)).toBeUndefined();
    expect(await service().authenticate(created.account.name, rotated.apiKey)).toBeDefined();
    expect(await service().rotateKey('no-such-name')).toEqual({ kind: 'not-found' });
    expect(await service().rotateKey(created.account.name, { keyName: 'nope' })).toMatchObject({ kind: 'invalid', setting: 'key' });
  });

  it('rotates with a grace period: both keys work until it ends, then only the new one', async () => {
    let now = 1_700_000_000_000;
    const clocked = new AccountsService(context().store.accounts, () => now);
    const created = await clocked.create(uniqueName());
    if (created.kind !== 'created') throw new Error('not created');
    const name = created.account.name;
    const rotated = await clocked.rotateKey(name, { grace: '1h' });
    if (rotated.kind !== 'issued') throw new Error('not rotated');
    expect(await clocked.authenticate(name, created.apiKey)).toBeDefined();
    expect(await clocked.authenticate(name, rotated.apiKey)).toBeDefined();
    now += 3_600_000;
    expect(await clocked.authenticate(name, created.apiKey)).toBeUndefined();
    expect(await clocked.authenticate(name, rotated.apiKey)).toBeDefined();
    expect(await clocked.rotateKey(name, { grace: 'soon' })).toMatchObject({ kind: 'invalid', setting: 'grace' });
  });

  it('adds named keys with a scope and an expiry, lists them without the keys, and revokes them', async () => {
    let now = 1_700_000_000_000;
    const clocked = new AccountsService(context().store.accounts, () => now);
    const created = await clocked.create(uniqueName());
    if (created.kind !== 'created') throw new Error('not created');
    const name = created.account.name;
    const reader = await clocked.addKey(name, 'reports', { scope: 'read', expires: '7D' });
    if (reader.kind !== 'issued') throw new Error('not issued');
    const authenticated = await clocked.authenticate(name, reader.apiKey);
    expect(authenticated?.key).toMatchObject({ name: 'reports', scope: 'read', expiresAt: now + 7 * 86_400_000 });
    expect(clocked.allows(authenticated!, 'read')).toBe(true);
    expect(clocked.allows(authenticated!, 'write')).toBe(false);
    expect(clocked.allows(authenticated!, 'login')).toBe(false);
    expect(await clocked.addKey(name, 'reports')).toMatchObject({ kind: 'invalid', setting: 'key name' });
    expect(await clocked.addKey(name, 'Bad Name')).toMatchObject({ kind: 'invalid', setting: 'key name' });
    expect(await clocked.addKey(name, 'x', { expires: 'forever' })).toMatchObject({ kind: 'invalid', setting: 'expires' });
    const listed = await clocked.keys(name);
    expect(listed?.keys.map((k) => k.name)).toEqual(['default', 'reports']);
    expect(JSON.stringify(listed)).not.toContain(reader.apiKey);
    now += 7 * 86_400_000;
    expect(await clocked.authenticate(name, reader.apiKey)).toBeUndefined();
    expect(await clocked.revokeKey(name, 'reports')).toEqual({ kind: 'revoked', count: 1 });
    expect(await clocked.revokeKey(name, 'reports')).toEqual({ kind: 'no-such-key' });
    expect(await clocked.authenticate(name, created.apiKey)).toBeDefined();
  });

  it('changes settings, refusing bad values without changing anything', async () => {
    const created = await service().create(uniqueName());
    if (created.kind !== 'created') throw new Error('not created');
    const name = created.account.name;
    expect(await service().change(name, { minPasswordLength: 12 })).toMatchObject({ kind: 'ok', account: { settings: { minPasswordLength: 12 } } });
    expect(await service().change(name, { minPasswordLength: 4, timeZone: 'Bad/Zone' })).toMatchObject({ kind: 'invalid', setting: 'time-zone' });
    expect((await service().find(name))?.settings.minPasswordLength).toBe(12);
    expect(await service().change('no-such-name', {})).toEqual({ kind: 'not-found' });
  });
});

describeEachEngine('demo account', (context) => {
  it('is created on a store without accounts, once, and never when accounts exist', async () => {
    const service = new AccountsService(context().store.accounts, Date.now);
    const [first, second] = await Promise.all([service.ensureDemoAccount(), service.ensureDemoAccount()]);
    // Two instances starting together: one creates it and prints the key, the other does nothing.
    expect([first, second].filter(Boolean)).toHaveLength(1);
    expect(await service.authenticate('demo', (first ?? second)!)).toBeDefined();
    expect(await service.ensureDemoAccount()).toBeUndefined();
  });
});
