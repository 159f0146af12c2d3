/**
 * Brute-force lockout as pure functions: given the failures counted so far and the account's
 * policy, how long a member stays locked. The store keeps the counters and increments them
 * atomically; these functions decide what the numbers mean.
 */
import type { LockoutPolicy } from '../accounts/account.js';

/** The lockout's scope for attempts without an address (the integrator sent no `IP`). */
export const NO_ADDRESS = '';
/** The lockout's scope counting every attempt at a member, whatever the address. */
export const ALL_ADDRESSES = '*';

export interface LoginThrottle {
  readonly failures: number;
  readonly lastFailureAt: number;
  readonly lockedUntil: number;
}

/**
 * A member's failures are counted twice: per client address (an IPv4 address, an IPv6 /64,
 * or no address when the integrator sent none), and across every address together.
 */
export interface LoginFailures {
  readonly address?: LoginThrottle;
  readonly all?: LoginThrottle;
}

export function isLocked(throttle: LoginThrottle | undefined, now: number): boolean {
  return throttle !== undefined && throttle.lockedUntil > now;
}

/** Locked from this address, or from every address. */
export function isLockedOut(failures: LoginFailures | undefined, now: number): boolean {
  return isLocked(failures?.address, now) || isLocked(failures?.all, now);
}

/** Failures older than this instant no longer count: the count starts over. */
export function countResetBefore(now: number, policy: LockoutPolicy): number {
  return now - policy.resetSeconds * 1000;
}

/**
 * NIST SP 800-63B: at most 100 consecutive failed attempts. The 100th failure in a row locks
 * the member until the count starts over (the reset time), whatever the steps say.
 */
export const MAX_CONSECUTIVE_FAILURES = 100;

/**
 * The instant until which a member is locked after its `failures`-th failure in a row, or 0.
 * The threshold-th failure locks for one step; each further failure adds a step, up to the
 * maximum (Keycloak's scheme); the 100th locks for the whole reset time.
 */
export function lockedUntilAfter(failures: number, now: number, policy: LockoutPolicy): number {
  if (policy.threshold === 0 || failures < policy.threshold) return 0;
  if (failures >= MAX_CONSECUTIVE_FAILURES) return now + policy.resetSeconds * 1000;
  const steps = failures - policy.threshold + 1;
  return now + Math.min(steps * policy.stepSeconds, policy.maxSeconds) * 1000;
}

/**
 * Across every address, only the ceiling applies: the 100th failure in a row, from wherever,
 * locks the member for the reset time, so that rotating addresses buys an attacker nothing
 * beyond 100 guesses (NIST SP 800-63B), whatever `IP` says.
 */
export function lockedUntilAcrossAddresses(failures: number, now: number, policy: LockoutPolicy): number {
  if (policy.threshold === 0 || failures < MAX_CONSECUTIVE_FAILURES) return 0;
  return now + policy.resetSeconds * 1000;
}

/** The lock a new count of failures begins (0: none): `address`, a count of one address; `all`, the count across addresses. */
export function lockedUntil(count: 'address' | 'all', failures: number, now: number, policy: LockoutPolicy): number {
  return count === 'all' ? lockedUntilAcrossAddresses(failures, now, policy) : lockedUntilAfter(failures, now, policy);
}
