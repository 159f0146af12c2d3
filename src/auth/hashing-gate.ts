/**
 * Admission control for password hashing, the one costly thing the service does.
 *
 * argon2id at OWASP's parameters costs tens of milliseconds of a core, so a server offered
 * more logins than its cores can verify would otherwise queue them without bound: every
 * answer late, memory growing, clients timing out and retrying. The gate runs at most
 * `concurrency` hashes at once (one per core by default), lets at most `queue` more wait,
 * and refuses the rest at once with `HashingBusy` (answered 503 with `Retry-After`), so the
 * cores keep doing useful work at full speed and the excess costs next to nothing.
 *
 * Hand-written rather than a queue library: a counter and a FIFO of waiters is all it is,
 * and the bounded queue with an immediate refusal is the point.
 */
import { availableParallelism } from 'node:os';
import type { PasswordHasher } from './passwords.js';

export interface HashingLimits {
  /** Hashes run at once. */
  readonly concurrency: number;
  /** Hashes that may wait for a free slot; more are refused. */
  readonly queue: number;
}

/** The defaults: one slot per core, and 32 waiting per slot (well under a second of waiting). */
export const QUEUE_PER_SLOT = 32;

export function hashingLimits(concurrency: number = availableParallelism(), queue: number = QUEUE_PER_SLOT * concurrency): HashingLimits {
  return { concurrency, queue };
}

/** Every slot is busy and the queue is full: come back shortly. */
export class HashingBusy extends Error {
  constructor() {
    super('password hashing at capacity');
  }
}

export interface HashingGateStats {
  readonly running: number;
  readonly waiting: number;
  readonly refused: number;
}

export class HashingGate {
  private running = 0;
  private refused = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly limits: HashingLimits) {
    if (!(limits.concurrency >= 1)) throw new RangeError('concurrency must be at least 1');
  }

  /** Runs `task` when a slot is free; throws HashingBusy at once when none will be soon. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      this.assertRoom();
      // The slot is handed over by the finishing task: `running` never drops in between.
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      const next = this.waiters.shift();
      if (next) next();
      else this.running--;
    }
  }

  /**
   * Throws HashingBusy when a hash asked for now would be refused: lets a request that will
   * need one be turned away before it costs anything else (reading the member, say).
   */
  assertRoom(): void {
    if (this.running >= this.limits.concurrency && this.waiters.length >= this.limits.queue) {
      this.refused++;
      throw new HashingBusy();
    }
  }

  stats(): HashingGateStats {
    return { running: this.running, waiting: this.waiters.length, refused: this.refused };
  }
}

/** The hasher with every hash and verification admitted by the gate. */
export function gatedHasher(inner: PasswordHasher, gate: HashingGate): PasswordHasher {
  return {
    hash: (password) => gate.run(() => inner.hash(password)),
    verify: (passwordHash, password) => gate.run(() => inner.verify(passwordHash, password)),
    needsRehash: (passwordHash) => inner.needsRehash(passwordHash),
  };
}
