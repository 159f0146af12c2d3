import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_LOCKOUT } from '../../src/accounts/account.js';
import { apiKeyMatches, digestApiKey, generateApiKey } from '../../src/accounts/api-key.js';
import { countResetBefore, isLocked, lockedUntilAfter } from '../../src/auth/lockout.js';
import { HashingBusy, HashingGate } from '../../src/auth/hashing-gate.js';
import { createArgon2Hasher, generatePassword, passwordLength } from '../../src/auth/passwords.js';
import { checkChosenPassword, isCommonPassword } from '../../src/auth/password-policy.js';

describe('lockout', () => {
  const policy = { threshold: 3, stepSeconds: 60, maxSeconds: 150, resetSeconds: 600 };

  it('locks from the threshold on, one step more per failure, up to the maximum', () => {
    expect(lockedUntilAfter(2, 0, policy)).toBe(0);
    expect(lockedUntilAfter(3, 0, policy)).toBe(60_000);
    expect(lockedUntilAfter(4, 0, policy)).toBe(120_000);
    expect(lockedUntilAfter(5, 0, policy)).toBe(150_000);
    expect(lockedUntilAfter(50, 0, policy)).toBe(150_000);
  });

  it('locks for the whole reset time at the 100th failure in a row (NIST SP 800-63B)', () => {
    expect(lockedUntilAfter(99, 0, policy)).toBe(150_000);
    expect(lockedUntilAfter(100, 0, policy)).toBe(600_000);
  });

  it('never locks with a threshold of 0', () => {
    expect(lockedUntilAfter(1000, 0, { ...policy, threshold: 0 })).toBe(0);
  });

  it('is locked strictly before the instant it ends', () => {
    expect(isLocked({ failures: 3, lastFailureAt: 0, lockedUntil: 100 }, 99)).toBe(true);
    expect(isLocked({ failures: 3, lastFailureAt: 0, lockedUntil: 100 }, 100)).toBe(false);
    expect(isLocked(undefined, 0)).toBe(false);
  });

  it('forgets failures older than the reset time', () => {
    expect(countResetBefore(1_000_000, policy)).toBe(400_000);
  });

  it('defaults to Keycloak’s numbers', () => {
    expect(DEFAULT_LOCKOUT).toEqual({ threshold: 30, stepSeconds: 60, maxSeconds: 900, resetSeconds: 43200 });
  });
});

describe('passwords', () => {
  it('generates 12 characters without look-alikes, differently each time', () => {
    const many = Array.from({ length: 200 }, generatePassword);
    for (const password of many) expect(password).toMatch(/^[A-HJ-NP-Za-km-z2-9]{12}$/);
    expect(new Set(many).size).toBe(200);
    expect(new Set(many.join('')).size).toBeGreaterThan(50);
  });

  it('counts length in characters after NFKC normalisation', () => {
    expect(passwordLength('😀😀')).toBe(2);
    expect(passwordLength('ﬁ')).toBe(2);
  });

  it('hashes with argon2id at m=19456, t=2, p=1 and verifies', async () => {
    const hasher = createArgon2Hasher();
    const hash = await hasher.hash('pässwörd');
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await hasher.verify(hash, 'pässwörd')).toBe(true);
    expect(await hasher.verify(hash, 'pässwörd ')).toBe(false);
    expect(await hasher.verify('not a hash', 'x')).toBe(false);
    expect(hasher.needsRehash(hash)).toBe(false);
  });

  it('never truncates: a 1024-character password differs from its 1023-character prefix', async () => {
    const hasher = createArgon2Hasher();
    const long = 'x'.repeat(1023) + 'y';
    const hash = await hasher.hash(long);
    expect(await hasher.verify(hash, 'x'.repeat(1023))).toBe(false);
    expect(await hasher.verify(hash, long)).toBe(true);
  });

  it('asks for a new hash when the parameters or the algorithm differ', async () => {
    const hasher = createArgon2Hasher();
    expect(hasher.needsRehash(await createArgon2Hasher({ memoryCost: 8192, timeCost: 2, parallelism: 1 }).hash('x'))).toBe(true);
    expect(hasher.needsRehash(await createArgon2Hasher({ memoryCost: 19456, timeCost: 3, parallelism: 1 }).hash('x'))).toBe(true);
    expect(hasher.needsRehash('$2b$10$abcdefghijklmnopqrstuu5Jd0yyZ6P6Xl6xCmZ4S1rF1Bx9x5ZqS')).toBe(true);
  });
});

describe('password policy', () => {
  it('refuses short, over-long and common passwords', () => {
    const rules = { minLength: 8, refuseCommon: true };
    expect(checkChosenPassword('abc', rules)).toBe('too-short');
    expect(checkChosenPassword('x'.repeat(1025), rules)).toBe('too-long');
    expect(checkChosenPassword('iloveyou', rules)).toBe('too-common');
    expect(checkChosenPassword('ILoveYou', rules)).toBe('too-common');
    expect(checkChosenPassword('correct-horse', rules)).toBe('ok');
    // An account with --password-check off takes a common one (its length still counts).
    expect(checkChosenPassword('iloveyou', { ...rules, refuseCommon: false })).toBe('ok');
    expect(checkChosenPassword('abc', { ...rules, refuseCommon: false })).toBe('too-short');
    expect(isCommonPassword('trustno1')).toBe(true);
    expect(isCommonPassword('generated-looking-Xk3pQ9')).toBe(false);
  });
});

describe('API keys', () => {
  it('are 256 random bits, stored as a SHA-256 digest, compared by digest', () => {
    const key = generateApiKey();
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    const digest = digestApiKey(key);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(apiKeyMatches(digest, key)).toBe(true);
    expect(apiKeyMatches(digest, `${key}x`)).toBe(false);
    expect(apiKeyMatches(digest, '')).toBe(false);
    expect(apiKeyMatches('short', key)).toBe(false);
  });
});

describe('hashing gate', () => {
  const deferred = () => {
    let resolve!: (value: string) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<string>((ok, no) => ((resolve = ok), (reject = no)));
    return { promise, resolve, reject };
  };

  it('runs at most `concurrency` tasks, queues up to `queue`, refuses the rest at once, and hands slots on in order', async () => {
    const gate = new HashingGate({ concurrency: 2, queue: 2, holdMs: 0 });
    const tasks = Array.from({ length: 5 }, () => deferred());
    const started: number[] = [];
    const runs = tasks.map((task, i) =>
      gate.run(() => {
        started.push(i);
        return task.promise;
      }),
    );
    await expect(runs[4]).rejects.toBeInstanceOf(HashingBusy);
    expect(started).toEqual([0, 1]);
    expect(gate.stats()).toEqual({ running: 2, waiting: 2, refused: 1 });
    tasks[1]!.resolve('b');
    expect(await runs[1]).toBe('b');
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    tasks[0]!.reject(new Error('failed'));
    await expect(runs[0]).rejects.toThrow('failed');
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2, 3]);
    expect(gate.stats()).toEqual({ running: 2, waiting: 0, refused: 1 });
    tasks[2]!.resolve('c');
    tasks[3]!.resolve('d');
    expect(await Promise.all([runs[2], runs[3]])).toEqual(['c', 'd']);
    expect(gate.stats()).toEqual({ running: 0, waiting: 0, refused: 1 });
  });

  /** Starts a task of `share` whose end the test decides; `order` records when each starts. */
  const starter =
    (gate: HashingGate, order: string[]) =>
    (name: string, account: string, client = 'c') => {
      const task = deferred();
      const run = gate.run(
        () => {
          order.push(name);
          return task.promise;
        },
        { account, client },
      );
      run.catch(() => {});
      return { task, run };
    };
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('gives a free slot to the accounts in turn: a quiet account waits behind one hash of a flooding one, not its queue', async () => {
    const gate = new HashingGate({ concurrency: 1, queue: 16, holdMs: 0 });
    const order: string[] = [];
    const start = starter(gate, order);
    const running = start('a0', 'A');
    const flood = Array.from({ length: 8 }, (_, i) => start(`a${i + 1}`, 'A'));
    const quiet = start('b', 'B');
    running.task.resolve('done');
    await settle();
    flood[0]!.task.resolve('done');
    await settle();
    // A's first waiter had its turn, then B's (not A's seven others).
    expect(order).toEqual(['a0', 'a1', 'b']);
    quiet.task.resolve('done');
    for (const waiting of flood) waiting.task.resolve('done');
    await Promise.all(flood.map((waiting) => waiting.run));
  });

  it('takes a full room’s newest place from the fullest account for another account, and within an account from its fullest client', async () => {
    const gate = new HashingGate({ concurrency: 1, queue: 4, holdMs: 0 });
    const order: string[] = [];
    const start = starter(gate, order);
    const running = start('a0', 'A');
    const flood = Array.from({ length: 4 }, (_, i) => start(`a${i + 1}`, 'A', 'flooder'));
    // The room is full of A's flooder: another account gets a place, the flooder's newest is refused.
    const other = start('b', 'B');
    await expect(flood[3]!.run).rejects.toBeInstanceOf(HashingBusy);
    // Another client of A gets one too (A holds 3, B 1: A is the fullest; its fullest client gives way).
    const neighbour = start('n', 'A', 'neighbour');
    await expect(flood[2]!.run).rejects.toBeInstanceOf(HashingBusy);
    // The flooder asking again finds nobody fuller than itself: refused at once.
    await expect(start('a5', 'A', 'flooder').run).rejects.toBeInstanceOf(HashingBusy);
    await expect(gate.admit({ account: 'A', client: 'flooder' })).rejects.toBeInstanceOf(HashingBusy);
    expect(gate.stats()).toEqual({ running: 1, waiting: 4, refused: 4 });
    running.task.resolve('done');
    for (const task of [flood[0]!, flood[1]!, other, neighbour]) {
      await settle();
      task.task.resolve('done');
    }
    await Promise.all([other.run, neighbour.run]);
    // In turn: A's flooder, B, A's neighbour… (accounts alternate, and clients within A).
    expect(order).toEqual(['a0', 'a1', 'b', 'n', 'a2']);
  });

  it('holds back the refusal of a client that holds a quarter of the room or more, and refuses anyone else at once', async () => {
    vi.useFakeTimers();
    try {
      const gate = new HashingGate({ concurrency: 1, queue: 4, holdMs: 1000 });
      const order: string[] = [];
      const start = starter(gate, order);
      const running = start('r', 'A', 'r');
      const waiting = ['p', 'q', 's', 't'].map((client) => start(client, 'A', client));
      // Four clients with a place each: each holds a quarter of the room, so its refusal is held.
      let answer: unknown;
      void start('p2', 'A', 'p').run.then(
        () => (answer = 'ran'),
        (error: unknown) => (answer = error),
      );
      await vi.advanceTimersByTimeAsync(999);
      expect(answer).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(answer).toBeInstanceOf(HashingBusy);
      // A client with no place while every other holds as much: refused at once.
      await expect(gate.admit({ account: 'A', client: 'newcomer' })).rejects.toBeInstanceOf(HashingBusy);
      running.task.resolve('done');
      for (const task of waiting) task.task.resolve('done');
      await vi.runAllTimersAsync();
    } finally {
      vi.useRealTimers();
    }
  });

  it('with no queue, refuses whatever finds every slot busy', async () => {
    const gate = new HashingGate({ concurrency: 1, queue: 0 });
    const task = deferred();
    const first = gate.run(() => task.promise);
    await expect(gate.run(async () => 'x')).rejects.toBeInstanceOf(HashingBusy);
    task.resolve('done');
    expect(await first).toBe('done');
    expect(await gate.run(async () => 'x')).toBe('x');
  });
});
