import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The accounts a request acts for, known to whatever it calls without being passed down: the
 * store notes that these accounts wrote when one of the request's writes commits, so that
 * their next reads are sent to the primary until a replica has the write (read-your-writes,
 * postgres-replicas.ts). The HTTP server opens a scope per request; the accounts service adds
 * each account it finds or authenticates. Outside a request (the sweep, an import's job, the
 * command line) there is no scope: a write there counts for every account. The background
 * jobs whose writes change no member run in an empty scope of their own (background-jobs.ts).
 */
const storage = new AsyncLocalStorage<Set<number>>();
/** Whether any scope was ever opened: until then `add` costs nothing (the session check finds its account on every page of a site). */
let opened = false;

export const accountScope = {
  /** Runs `work` in a scope of its own (one per request). */
  run<T>(work: () => T): T {
    opened = true;
    return storage.run(new Set(), work);
  },
  /** The request acts for this account too. */
  add(accountId: number): void {
    if (opened) storage.getStore()?.add(accountId);
  },
  /** The accounts of the current request; undefined outside one. */
  accounts(): ReadonlySet<number> | undefined {
    return storage.getStore();
  },
};
