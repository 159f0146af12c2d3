/**
 * Request limits (rate-limiter-flexible):
 *
 * - failed API-key attempts per client address: after `maxFailures` within the window, every
 *   key-protected request from that address is refused (429) until the window has passed;
 * - an optional request rate per account (requests per minute; 0 = no limit), so that one
 *   tenant cannot take the whole installation.
 *
 * The limiters come from the store, so that several servers on one PostgreSQL database
 * count together; on SQLite (one server) they count in memory.
 */
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimiterOptions } from '../store/dialects/dialect.js';

/** Makes a limiter; the store's, or one in memory. */
export type LimiterFactory = (options: RateLimiterOptions) => RateLimiterAbstract;

export type Admission = { readonly ok: true } | { readonly ok: false; readonly retryAfterSeconds: number };

const ADMITTED: Admission = { ok: true };

function refusal(result: RateLimiterRes): Admission {
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)) };
}

export interface KeyGuessLimits {
  readonly maxFailures: number;
  readonly windowSeconds: number;
}

export class KeyGuessGuard {
  private readonly failures: RateLimiterAbstract;

  constructor(
    private readonly limits: KeyGuessLimits,
    limiter: LimiterFactory,
  ) {
    this.failures = limiter({ keyPrefix: 'key-failures', points: limits.maxFailures, duration: limits.windowSeconds });
  }

  async admit(address: string): Promise<Admission> {
    const seen = await this.failures.get(address);
    return seen && seen.consumedPoints >= this.limits.maxFailures ? refusal(seen) : ADMITTED;
  }

  async recordFailure(address: string): Promise<void> {
    // Rejects once over the limit: the count is what matters, not the answer.
    await this.failures.consume(address).catch(() => {});
  }
}

export class AccountRateLimiter {
  /** One limiter per distinct rate; accounts with the same rate share it, keyed by account. */
  private readonly byRate = new Map<number, RateLimiterAbstract>();

  constructor(private readonly limiter: LimiterFactory) {}

  async admit(accountId: number, perMinute: number): Promise<Admission> {
    if (perMinute === 0) return ADMITTED;
    let limiter = this.byRate.get(perMinute);
    if (!limiter) {
      limiter = this.limiter({ keyPrefix: `account-rate-${perMinute}`, points: perMinute, duration: 60 });
      this.byRate.set(perMinute, limiter);
    }
    try {
      await limiter.consume(String(accountId));
      return ADMITTED;
    } catch (result) {
      if (result instanceof RateLimiterRes) return refusal(result);
      throw result;
    }
  }
}
