/**
 * Concurrent work that holds resources for as long as a client takes to read an answer (a
 * list holds a read snapshot, and a database connection or reader thread with it): at most
 * `total` at once in all, and `perAccount` at once per account, so that one tenant's many (or
 * stalled) lists never take what every other tenant needs. A request waits a moment for a
 * slot (small lists end in milliseconds: ten at once from one integrator are normal), then
 * is refused with 503.
 */
import { HttpError, MESSAGES } from './errors.js';

export interface ConcurrencyLimits {
  readonly total: number;
  readonly perAccount: number;
  /** How long a request waits for a slot before it is refused, in milliseconds. */
  readonly waitMs: number;
}

interface Waiter {
  readonly accountId: number;
  readonly grant: () => void;
}

export class ConcurrencySlots {
  private running = 0;
  private readonly byAccount = new Map<number, number>();
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limits: ConcurrencyLimits) {}

  /** A slot for the account, released by the function answered (once, however often it is called); 503 when none frees up in time. */
  async take(accountId: number): Promise<() => void> {
    if (!this.fits(accountId)) {
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { accountId, grant: () => (clearTimeout(timer), resolve()) };
        const timer = setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new HttpError(503, MESSAGES.busy, { 'retry-after': '1' }));
        }, this.limits.waitMs);
        this.waiting.push(waiter);
      });
    }
    this.running++;
    this.byAccount.set(accountId, (this.byAccount.get(accountId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const left = (this.byAccount.get(accountId) ?? 1) - 1;
      if (left === 0) this.byAccount.delete(accountId);
      else this.byAccount.set(accountId, left);
      this.wakeOne();
    };
  }

  stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private fits(accountId: number): boolean {
    return this.running < this.limits.total && (this.byAccount.get(accountId) ?? 0) < this.limits.perAccount;
  }

  /** The first waiter that fits now gets the slot just freed. */
  private wakeOne(): void {
    const index = this.waiting.findIndex((waiter) => this.fits(waiter.accountId));
    if (index >= 0) this.waiting.splice(index, 1)[0]!.grant();
  }
}
