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

/** What a limiter counts: the store makes it (so that several servers share the counts). */
export interface RateLimiterOptions {
  /** Tells this limiter's keys from another's. */
  readonly keyPrefix: string;
  /** What may be used per `duration`. */
  readonly points: number;
  /** Seconds. */
  readonly duration: number;
}

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

/**
 * Logins without a key have budgets of their own, never the account's keyed one (the account
 * name is public, in every verify_url): per member login and per client address, each
 * `perMinute` a minute. Both are spent by every attempt.
 */
export class AnonymousLoginLimiter {
  private readonly byRate = new Map<number, RateLimiterAbstract>();

  constructor(private readonly limiter: LimiterFactory) {}

  async admit(accountId: number, loginKey: string, address: string, perMinute: number): Promise<Admission> {
    if (perMinute === 0) return ADMITTED;
    let limiter = this.byRate.get(perMinute);
    if (!limiter) {
      limiter = this.limiter({ keyPrefix: `anonymous-logins-${perMinute}`, points: perMinute, duration: 60 });
      this.byRate.set(perMinute, limiter);
    }
    const spend = (key: string) =>
      limiter.consume(key).then(
        () => ADMITTED,
        (result: unknown) => {
          if (result instanceof RateLimiterRes) return refusal(result);
          throw result;
        },
      );
    const [member, client] = await Promise.all([spend(`${accountId}:login:${loginKey}`), spend(`${accountId}:address:${address}`)]);
    return member.ok ? client : member;
  }
}

/**
 * The member pages' forms that anyone can send (registration, the password reminder): each a
 * budget per client address and one per account, per hour, so that a script can neither fill
 * an account with members nor its members' mailboxes with links.
 */
export class PageFormLimiter {
  private readonly perAddress: RateLimiterAbstract;
  private readonly perAccount: RateLimiterAbstract;

  constructor(limiter: LimiterFactory, form: string, limits: { perAddressPerHour: number; perAccountPerHour: number }) {
    this.perAddress = limiter({ keyPrefix: `${form}-address`, points: limits.perAddressPerHour, duration: 3600 });
    this.perAccount = limiter({ keyPrefix: `${form}-account`, points: limits.perAccountPerHour, duration: 3600 });
  }

  async admit(accountId: number, address: string): Promise<Admission> {
    const spend = (limiter: RateLimiterAbstract, key: string) =>
      limiter.consume(key).then(
        () => ADMITTED,
        (result: unknown) => {
          if (result instanceof RateLimiterRes) return refusal(result);
          throw result;
        },
      );
    const client = await spend(this.perAddress, `${accountId}:${address}`);
    return client.ok ? spend(this.perAccount, String(accountId)) : client;
  }
}
