/**
 * Work that would hold the event loop (a pure-JS password hash, a long SQLite read) runs in
 * worker threads. A pool starts up to `size` workers from one module, lazily, and hands each
 * to one user at a time: `run` for a single request, `checkout` for a session of several
 * (a read snapshot lives in one worker's connection). Workers are unref'd: an idle pool
 * never keeps the process alive.
 *
 * The worker module answers with `serveRequests`. Under tsx (the tests, `npm run dev`) the
 * module is TypeScript, and the worker registers tsx first.
 */
import { parentPort, Worker } from 'node:worker_threads';

/** An error as it crosses between threads: its message and its code (SQLite's, say). */
export interface WorkerErrorMessage {
  readonly message: string;
  readonly code?: string;
}

type Message<T> = { id: number } & ({ ok: true; value: T } | { ok: false; error: WorkerErrorMessage });

/** An error caught in a worker, ready for the trip back. */
export function workerErrorOf(error: unknown): WorkerErrorMessage {
  const { message, code } = (error ?? {}) as { message?: string; code?: string };
  return { message: message ?? String(error), code: typeof code === 'string' ? code : undefined };
}

/** An error raised in a worker, as the caller sees it: its message and code survive the trip. */
export class WorkerError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** One worker, to one user at a time. */
export interface WorkerSession<Request, Reply> {
  call(request: Request): Promise<Reply>;
  /** Gives the worker back; `broken` ends it (its state cannot be trusted), resolving once it has ended. */
  release(broken?: boolean): Promise<void>;
}

class PooledWorker<Request, Reply> {
  private next = 0;
  private readonly pending = new Map<number, { resolve: (value: Reply) => void; reject: (error: Error) => void }>();
  readonly worker: Worker;
  dead = false;

  constructor(moduleUrl: URL, onExit: () => void) {
    this.worker = startWorker(moduleUrl);
    this.worker.unref();
    this.worker.on('message', (message: Message<Reply>) => {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new WorkerError(message.error.message, message.error.code));
    });
    const fail = (error: Error) => {
      if (this.dead) return;
      this.dead = true;
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
      onExit();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', () => fail(new Error('worker exited')));
  }

  /** Ends the worker; its exit is reported as any other. */
  async end(): Promise<void> {
    await this.worker.terminate();
  }

  call(request: Request, transfer: readonly ArrayBuffer[] = []): Promise<Reply> {
    if (this.dead) return Promise.reject(new Error('worker exited'));
    const id = this.next++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, payload: request }, [...transfer]);
    });
  }
}

export class WorkerPool<Request, Reply> {
  private readonly idle: Array<PooledWorker<Request, Reply>> = [];
  private readonly waiting: Array<(worker: PooledWorker<Request, Reply>) => void> = [];
  private started = 0;

  constructor(
    private readonly moduleUrl: URL,
    private readonly size: number,
  ) {}

  /** A worker of its own until released; waits while all are busy. */
  async checkout(): Promise<WorkerSession<Request, Reply>> {
    const worker = await this.acquire();
    let released = false;
    return {
      call: (request) => worker.call(request),
      release: async (broken = false) => {
        if (released) return;
        released = true;
        if (broken || worker.dead) {
          await worker.end();
          return;
        }
        const waiter = this.waiting.shift();
        if (waiter) waiter(worker);
        else this.idle.push(worker);
      },
    };
  }

  /** One request, on whichever worker is free. */
  async run(request: Request): Promise<Reply> {
    const session = await this.checkout();
    try {
      return await session.call(request);
    } finally {
      void session.release();
    }
  }

  /** Starts workers ahead of need, up to `count` idle (their start is not paid by a request). */
  warm(count: number): void {
    while (this.idle.length < count && this.started < this.size) this.idle.push(this.start());
  }

  /** Workers started, idle, and users waiting for one. */
  stats(): { started: number; idle: number; waiting: number } {
    return { started: this.started, idle: this.idle.length, waiting: this.waiting.length };
  }

  /** Ends every worker (idle ones now; busy ones as they are released). */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((w) => w.worker.terminate()));
  }

  private acquire(): Promise<PooledWorker<Request, Reply>> {
    const idle = this.idle.pop();
    if (idle) return Promise.resolve(idle);
    if (this.started < this.size) return Promise.resolve(this.start());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private start(): PooledWorker<Request, Reply> {
    this.started++;
    const worker: PooledWorker<Request, Reply> = new PooledWorker<Request, Reply>(this.moduleUrl, () => this.forget(worker));
    return worker;
  }

  /** A worker that ended no longer counts; one waiting for a worker gets a new one. */
  private forget(worker: PooledWorker<Request, Reply>): void {
    const index = this.idle.indexOf(worker);
    if (index >= 0) this.idle.splice(index, 1);
    this.started--;
    const waiter = this.waiting.shift();
    if (waiter) waiter(this.start());
  }
}

/** Starts a worker from a module; a TypeScript one (under tsx) registers tsx first. */
function startWorker(moduleUrl: URL): Worker {
  if (!moduleUrl.pathname.endsWith('.ts')) return new Worker(moduleUrl);
  const boot = `const { register } = await import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}); register(); await import(${JSON.stringify(moduleUrl.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(boot)}`));
}

/** The worker's side: answers each request with `handle`'s value, or its error. */
export function serveRequests<Request, Reply>(handle: (request: Request) => Reply | Promise<Reply>): void {
  const port = parentPort;
  if (!port) throw new Error('serveRequests runs in a worker thread');
  port.on('message', async ({ id, payload }: { id: number; payload: Request }) => {
    try {
      port.postMessage({ id, ok: true, value: await handle(payload) });
    } catch (error) {
      port.postMessage({ id, ok: false, error: workerErrorOf(error) });
    }
  });
}
