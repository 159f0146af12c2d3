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

/** The token of a set-up link: in its query, never its path. */
function tokenOf(link: string | undefined): string {
  const url = new URL(link!);
  expect(url.pathname).toBe('/admin/setup');
  return url.searchParams.get('token')!;
}

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
    const token = tokenOf(added.link);
    return { service, store, account, email, token, advance: (ms: number) => (now += ms) };
  };

  it('sets a password once through its link, which expires, and refuses a weak one', async () => {
    const { service, token, advance, email } = await setUp();
    expect(await service.setPassword(token, 'short')).toMatchObject({ kind: 'weak' });
    expect((await service.setPassword(token, PASSWORD)).kind).toBe('set');
    expect((await service.setPassword(token, PASSWORD)).kind).toBe('invalid-link');
    const reset = await service.reset(email);
    advance(LINK_LIFETIME_MS + 1);
    expect((await service.setPassword(tokenOf(reset!.link), PASSWORD)).kind).toBe('invalid-link');
  });

  it('makes an administrator (made when new, a link when it has no password), and takes it back, keeping its own roles', async () => {
    const { service, email, account } = await setUp();
    const fresh = await service.setAdministrator(`admin-${account.id}@example.com`, true);
    if ('kind' in fresh) throw new Error('not made');
    expect(fresh.operator).toMatchObject({ administrator: true, hasPassword: false, accounts: [] });
    expect(fresh.link).toBeDefined();
    const existing = await service.setAdministrator(email.toUpperCase(), true);
    if ('kind' in existing) throw new Error('not found');
    expect(existing.operator).toMatchObject({ email, administrator: true, accounts: [{ account: account.name, role: 'editor' }] });
    const off = await service.setAdministrator(email, false);
    if ('kind' in off) throw new Error('not found');
    expect(off.operator).toMatchObject({ administrator: false, accounts: [{ account: account.name, role: 'editor' }] });
    expect(off.link).toBeUndefined();
    // Taking it from an address no operator has makes no one.
    expect(await service.setAdministrator(`nobody-${account.id}@example.com`, false)).toEqual({ kind: 'not-found' });
  });

  it('ends every outstanding link of an operator: a newer link, its password set, a reset, a removal', async () => {
    const { service, store, token, email, account } = await setUp();
    const second = await insertAccount(store);
    const third = await insertAccount(store);
    // A second role before any password: a new link, and the first one ends.
    const again = await service.add(email, second.name, 'viewer');
    if ('kind' in again) throw new Error('no account');
    expect(await service.linkFor(token)).toBeUndefined();
    expect((await service.setPassword(token, PASSWORD)).kind).toBe('invalid-link');
    expect((await service.setPassword(tokenOf(again.link), PASSWORD)).kind).toBe('set');
    // With a password: a role on one more account hands out no link at all.
    const granted = await service.add(email, third.name, 'viewer');
    if ('kind' in granted) throw new Error('no account');
    expect([granted.link, granted.operator.hasPassword, granted.operator.accounts.length]).toEqual([undefined, true, 3]);
    const signedIn = await service.signIn(email, PASSWORD);
    expect(signedIn.kind).toBe('signed-in');
    // A reset ends the links handed out before it (the leaked one), and the sessions.
    const leaked = tokenOf((await service.reset(email))!.link);
    const fresh = tokenOf((await service.reset(email))!.link);
    expect((await service.setPassword(leaked, 'another-long-password')).kind).toBe('invalid-link');
    expect((await service.setPassword(fresh, PASSWORD)).kind).toBe('set');
    // Removing its access to one account, or removing it, ends its links.
    const beforeRemoval = tokenOf((await service.reset(email))!.link);
    expect(await service.remove(email, second.name)).toBe(true);
    expect((await service.setPassword(beforeRemoval, PASSWORD)).kind).toBe('invalid-link');
    const last = tokenOf((await service.reset(email))!.link);
    expect(await service.remove(email)).toBe(true);
    expect((await service.setPassword(last, PASSWORD)).kind).toBe('invalid-link');
    expect(await service.find(email)).toBeUndefined();
    expect(accessTo(granted.operator, account.name)).toBeDefined();
  });

  it('refuses an operator password the members’ rules refuse: a common one, one too short or too long', async () => {
    const { service, token } = await setUp();
    expect(await service.setPassword(token, 'qwerty123456')).toEqual({ kind: 'weak', message: expect.stringContaining('most common') });
    expect(await service.setPassword(token, 'short-one')).toEqual({ kind: 'weak', message: expect.stringContaining('at least 12') });
    expect(await service.setPassword(token, 'x'.repeat(1025))).toEqual({ kind: 'weak', message: expect.stringContaining('too long') });
    expect((await service.setPassword(token, PASSWORD)).kind).toBe('set');
  });

  it('signs in, locks after the lockout threshold, and answers unknown, wrong and locked alike after the same work', async () => {
    const { service, token, email, store } = await setUp();
    await service.setPassword(token, PASSWORD);
    expect((await service.signIn(email.toUpperCase(), PASSWORD)).kind).toBe('signed-in');
    const verified: string[] = [];
    const counting = new OperatorsService(
      store.operators,
      store.accounts,
      { ...hasher, verify: async (h, p) => (verified.push(h), hasher.verify(h, p)) },
      () => Date.parse('2026-11-23T10:00:00Z'),
      () => '',
    );
    expect((await counting.signIn('nobody@example.com', PASSWORD)).kind).toBe('refused');
    const outcomes = [];
    for (let i = 0; i < 30; i++) outcomes.push((await counting.signIn(email, 'wrong-password-here')).kind);
    expect(outcomes.every((kind) => kind === 'refused')).toBe(true);
    // Locked now: even the right password is refused, with the same answer, after a verification.
    expect((await counting.signIn(email, PASSWORD)).kind).toBe('refused');
    expect((await store.operators.credentials(email))!.lockedUntil).toBeGreaterThan(Date.parse('2026-11-23T10:00:00Z'));
    // One verification per attempt, whichever the case (the unknown one against a decoy)…
    expect(verified).toHaveLength(32);
    // …but none for a password longer than any can be: refused before it is normalised or hashed.
    expect((await counting.signIn(email, 'y'.repeat(1025))).kind).toBe('refused');
    expect((await counting.signIn('nobody@example.com', 'y'.repeat(1025))).kind).toBe('refused');
    expect(verified).toHaveLength(32);
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
