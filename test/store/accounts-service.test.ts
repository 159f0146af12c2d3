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
    expect(created.account.apiKeyDigest).not.toContain(created.apiKey);
    expect((await service().authenticate(created.account.name, created.apiKey))?.id).toBe(created.account.id);
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
    expect(await service().create('UPPER')).toMatchObject({ kind: 'invalid', setting: 'name' });
    expect(await service().create('x'.repeat(65))).toMatchObject({ kind: 'invalid', setting: 'name' });
    expect(await service().create(uniqueName(), { timeZone: 'Nowhere' })).toMatchObject({ kind: 'invalid', setting: 'time-zone' });
    const name = uniqueName();
    await service().create(name);
    expect(await service().create(name)).toEqual({ kind: 'name-taken' });
  });

  it('rotates a key: the old one stops working at once', async () => {
    const created = await service().create(uniqueName());
    if (created.kind !== 'created') throw new Error('not created');
    const rotated = await service().rotateKey(created.account.name);
    if (rotated.kind !== 'ok') throw new Error('not rotated');
    expect(await service().authenticate(created.account.name, created.apiKey)).toBeUndefined();
    expect(await service().authenticate(created.account.name, rotated.apiKey)).toBeDefined();
    expect(await service().rotateKey('no-such-name')).toEqual({ kind: 'not-found' });
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
