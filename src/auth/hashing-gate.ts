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
 * The waiting room is shared fairly. Each hash comes with its share: the account it is for and
 * the client that asked (an IPv4 address, an IPv6 /64). A free slot goes to the accounts in
 * turn, and within an account to its clients in turn, so a request of an account that is not
 * flooding waits for at most one hash of each other busy account, however long their queues.
 * When the room is full, a newcomer whose account (or, within the fullest account, whose
 * client) holds fewer waiting places than the fullest one takes the newest place of that
 * fullest one, which is refused instead: one client, or one account, keeps the whole room only
 * while nobody else asks (max-min fairness, as a router's fair queue shares a link).
 *
 * A client refused while it holds a quarter of the room or more has its refusal held back a
 * moment (`holdMs`): a client that floods, asking again the instant it is refused, would
 * otherwise spend the server's event loop on thousands of refusals a second, and every other
 * tenant's requests would wait behind them. Held, its flood slows itself down; anyone else is
 * refused at once.
 *
 * Hand-written rather than a queue library: two maps in turn order and a FIFO per client,
 * with a bounded room and an immediate refusal, is the whole of it.
 */
import { availableParallelism } from 'node:os';
import type { HashingShare, PasswordHasher } from './passwords.js';

export type { HashingShare } from './passwords.js';

export interface HashingLimits {
  /** Hashes run at once. */
  readonly concurrency: number;
  /** Hashes that may wait for a free slot; more are refused. */
  readonly queue: number;
  /** How long the refusal of a client holding a quarter of the room or more is held back (default HOLD_MS). */
  readonly holdMs?: number;
}

/** A flooding client's refusals come this much later (see above). */
export const HOLD_MS = 1000;

/** Work that asks for no one in particular (an import, the command line): one share of its own. */
export const BACKGROUND_SHARE: HashingShare = { account: '', client: '' };

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

interface Waiter {
  readonly admit: () => void;
  readonly refuse: (error: HashingBusy) => void;
}

/** A client's waiters, oldest first. */
type ClientQueue = Waiter[];
/** An account's clients in turn order, and how many of its hashes wait. */
interface AccountQueue {
  readonly clients: Map<string, ClientQueue>;
  waiting: number;
}

export class HashingGate {
  private running = 0;
  private waiting = 0;
  private refused = 0;
  /** The accounts with waiters, in turn order (a Map keeps insertion order: the next turn is its first entry). */
  private readonly accounts = new Map<string, AccountQueue>();

  constructor(private readonly limits: HashingLimits) {
    if (!(limits.concurrency >= 1)) throw new RangeError('concurrency must be at least 1');
  }

  /** Runs `task` when a slot is free, in its share's turn; throws HashingBusy when it cannot wait. */
  async run<T>(task: () => Promise<T>, share: HashingShare = BACKGROUND_SHARE): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      if (!this.makeRoom(share)) await this.refuse(share);
      // The slot is handed over by the finishing task: `running` never drops in between.
      await new Promise<void>((admit, refuse) => this.enqueue(share, { admit, refuse }));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      const next = this.dequeue();
      if (next) next.admit();
      else this.running--;
    }
  }

  /**
   * Rejects with HashingBusy when a hash of this share asked for now would be refused: lets a
   * request that will need one be turned away before it costs anything else (reading the
   * member, say). Resolves at once when it would not.
   */
  async admit(share: HashingShare = BACKGROUND_SHARE): Promise<void> {
    if (this.running >= this.limits.concurrency && this.waiting >= this.limits.queue && this.fullest(share) === undefined) await this.refuse(share);
  }

  /** Refused: at once, or, for a client holding a quarter of the room or more, a moment later. */
  private async refuse(share: HashingShare): Promise<never> {
    this.refused++;
    const held = this.accounts.get(share.account)?.clients.get(share.client)?.length ?? 0;
    const holdMs = this.limits.holdMs ?? HOLD_MS;
    if (holdMs > 0 && this.limits.queue > 0 && held * 4 >= this.limits.queue) await new Promise((resolve) => setTimeout(resolve, holdMs));
    throw new HashingBusy();
  }

  stats(): HashingGateStats {
    return { running: this.running, waiting: this.waiting, refused: this.refused };
  }

  /** A place for a waiter of `share`: free, or taken from the fullest share (true); false when neither. */
  private makeRoom(share: HashingShare): boolean {
    if (this.waiting < this.limits.queue) return true;
    const victim = this.fullest(share);
    if (victim === undefined) return false;
    this.refused++;
    this.take(victim.account, victim.client).refuse(new HashingBusy());
    return true;
  }

  /**
   * The share that holds more of the room than `share` would once admitted: the fullest
   * account, when it holds more than the newcomer's account would; else, within the
   * newcomer's own account, its fullest client, when it holds more than the newcomer would.
   */
  private fullest(share: HashingShare): { account: string; client: string } | undefined {
    const own = this.accounts.get(share.account);
    const ownCount = own?.waiting ?? 0;
    let fullest: [string, AccountQueue] | undefined;
    for (const entry of this.accounts) if (!fullest || entry[1].waiting > fullest[1].waiting) fullest = entry;
    if (fullest && fullest[0] !== share.account && fullest[1].waiting > ownCount + 1) return { account: fullest[0], client: largestClient(fullest[1]) };
    if (!own) return undefined;
    const ownClient = own.clients.get(share.client)?.length ?? 0;
    const client = largestClient(own);
    return client !== share.client && own.clients.get(client)!.length > ownClient + 1 ? { account: share.account, client } : undefined;
  }

  private enqueue(share: HashingShare, waiter: Waiter): void {
    let account = this.accounts.get(share.account);
    if (!account) this.accounts.set(share.account, (account = { clients: new Map(), waiting: 0 }));
    let client = account.clients.get(share.client);
    if (!client) account.clients.set(share.client, (client = []));
    client.push(waiter);
    account.waiting++;
    this.waiting++;
  }

  /** The next waiter in turn (the first account's first client's oldest); each moves to the back of its turn. */
  private dequeue(): Waiter | undefined {
    const first = this.accounts.entries().next();
    if (first.done) return undefined;
    const [accountKey, account] = first.value;
    const [clientKey, client] = account.clients.entries().next().value!;
    const waiter = client.shift()!;
    account.clients.delete(clientKey);
    if (client.length > 0) account.clients.set(clientKey, client);
    account.waiting--;
    this.waiting--;
    this.accounts.delete(accountKey);
    if (account.waiting > 0) this.accounts.set(accountKey, account);
    return waiter;
  }

  /** Takes the newest waiter of a client out of the room (it is refused; the turns stay as they were). */
  private take(accountKey: string, clientKey: string): Waiter {
    const account = this.accounts.get(accountKey)!;
    const client = account.clients.get(clientKey)!;
    const waiter = client.pop()!;
    if (client.length === 0) account.clients.delete(clientKey);
    account.waiting--;
    this.waiting--;
    if (account.waiting === 0) this.accounts.delete(accountKey);
    return waiter;
  }
}

function largestClient(account: AccountQueue): string {
  let largest: [string, ClientQueue] | undefined;
  for (const entry of account.clients) if (!largest || entry[1].length > largest[1].length) largest = entry;
  return largest![0];
}

/** The hasher with every hash and verification admitted by the gate, in its share's turn. */
export function gatedHasher(inner: PasswordHasher, gate: HashingGate): PasswordHasher {
  return {
    hash: (password, share) => gate.run(() => inner.hash(password), share),
    verify: (passwordHash, password, share) => gate.run(() => inner.verify(passwordHash, password), share),
    needsRehash: (passwordHash) => inner.needsRehash(passwordHash),
  };
}
