/**
 * Brute-force lockout as pure functions: given the failures counted so far and the account's
 * policy, how long a member stays locked. The store keeps the counters and increments them
 * atomically; these functions decide what the numbers mean.
 */
import type { LockoutPolicy } from '../accounts/account.js';

export interface LoginThrottle {
  readonly failures: number;
  readonly lastFailureAt: number;
  readonly lockedUntil: number;
}

export function isLocked(throttle: LoginThrottle | undefined, now: number): boolean {
  return throttle !== undefined && throttle.lockedUntil > now;
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
