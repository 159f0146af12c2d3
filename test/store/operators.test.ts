/**
 * The console's operators over the real store, on both engines: a set-up link works once and
 * expires; sign-in counts failures into the members' lockout; sessions end when idle, when
 * too old, on sign-out, everywhere at once, and on a reset; access follows the roles.
 */
import { expect, it } from 'vitest';
import { describeEachEngine } from '../support/engines.js';
import { insertAccount } from '../support/factories.js';
import { OperatorsService, accessTo, LINK_LIFETIME_MS, SESSION_IDLE_MS, SESSION_LIFETIME_MS } from '../../src/operators/operators-service.js';
import type { PasswordHasher } from '../../src/auth/passwords.js';

/** A fast stand-in for argon2id (the hashing is not what is tested here). */
const hasher: PasswordHasher = { hash: async (p) => `plain:${p}`, verify: async (h, p) => h === `plain:${p}`, needsRehash: () => false };
const PASSWORD = 'a-long-operator-password';

describeEachEngine('operators', (context) => {
  const setUp = async () => {
    let now = Date.parse('2026-11-23T10:00:00Z');
    const clock = () => now;
    const { store } = context();
    const account = await insertAccount(store);
    const service = new OperatorsService(store.operators, store.accounts, hasher, clock, () => 'https://members.example.com');
    const email = `op-${account.id}@example.com`;
    const added = await service.add(email, account.name, 'editor');
    if ('kind' in added) throw new Error('no account');
    const token = added.link.split('/admin/setup/')[1]!;
    return { service, account, email, token, advance: (ms: number) => (now += ms) };
  };

  it('sets a password once through its link, which expires, and refuses a weak one', async () => {
    const { service, token, advance, email } = await setUp();
    expect(await service.setPassword(token, 'short')).toMatchObject({ kind: 'weak' });
    expect((await service.setPassword(token, PASSWORD)).kind).toBe('set');
    expect((await service.setPassword(token, PASSWORD)).kind).toBe('invalid-link');
    const reset = await service.reset(email);
    advance(LINK_LIFETIME_MS + 1);
    expect((await service.setPassword(reset!.link.split('/admin/setup/')[1]!, PASSWORD)).kind).toBe('invalid-link');
  });

  it('signs in, locks after the lockout threshold, and answers an unknown e-mail as a wrong password', async () => {
    const { service, token, email } = await setUp();
    await service.setPassword(token, PASSWORD);
    expect((await service.signIn(email.toUpperCase(), PASSWORD)).kind).toBe('signed-in');
    expect((await service.signIn('nobody@example.com', PASSWORD)).kind).toBe('refused');
    const outcomes = [];
    for (let i = 0; i < 30; i++) outcomes.push((await service.signIn(email, 'wrong-password-here')).kind);
    expect(outcomes.slice(0, 29).every((kind) => kind === 'refused')).toBe(true);
    expect(outcomes[29]).toBe('locked');
    // Locked: even the right password is refused until the lock ends.
    expect((await service.signIn(email, PASSWORD)).kind).toBe('locked');
  });

  it('ends sessions when idle, when too old, on sign-out, everywhere, and on a reset', async () => {
    const { service, token, email, advance, account } = await setUp();
    await service.setPassword(token, PASSWORD);
    const signIn = async () => {
      const outcome = await service.signIn(email, PASSWORD);
      if (outcome.kind !== 'signed-in') throw new Error(outcome.kind);
      return outcome.token;
    };
    const idle = await signIn();
    expect((await service.session(idle))?.email).toBe(email);
    advance(SESSION_IDLE_MS + 1);
    expect(await service.session(idle)).toBeUndefined();
    // Used every 20 minutes it lives on, until 12 hours after sign-in.
    const busy = await signIn();
    for (let used = 0; used < SESSION_LIFETIME_MS - 20 * 60_000; used += 20 * 60_000) {
      advance(20 * 60_000);
      expect(await service.session(busy)).toBeDefined();
    }
    advance(20 * 60_000 + 1);
    expect(await service.session(busy)).toBeUndefined();
    const one = await signIn();
    const two = await signIn();
    await service.signOut(one);
    expect(await service.session(one)).toBeUndefined();
    expect(await service.session(two)).toBeDefined();
    const operator = (await service.session(two))!;
    await service.signOutEverywhere(operator.id);
    expect(await service.session(two)).toBeUndefined();
    const three = await signIn();
    await service.reset(email);
    expect(await service.session(three)).toBeUndefined();
    expect(accessTo(operator, account.name, 'editor')).toBeDefined();
    expect(accessTo(operator, account.name, 'owner')).toBeUndefined();
    expect(accessTo(operator, 'another-account')).toBeUndefined();
  });
});
