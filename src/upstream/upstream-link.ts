/**
 * An account linked to its upstream: the service its members come from (the hosted
 * original, or any server that speaks this API). While linked, the members brought over by
 * `migrate-members` log in with the passwords they had there (the upstream checks them once,
 * and this service keeps them), and writes made here may be mirrored there.
 */

export interface UpstreamLinkSettings {
  /** The upstream's base, without `/api2` (`https://members.example.com`). */
  readonly url: string;
  readonly user: string;
  /** The upstream account's API key: kept as it is (it has to be sent), never shown. */
  readonly key: string;
  /** The zone the upstream writes its dates in (its account's), to read them as the same instants. */
  readonly timeZone: string;
  /** A login unknown here is tried at the upstream (a member created there after the last sync). */
  readonly captureUnknown: boolean;
  /** /create/ and /update/ made here are made at the upstream too. */
  readonly mirrorWrites: boolean;
}

export interface UpstreamLink extends UpstreamLinkSettings {
  readonly accountId: number;
  readonly linkedAt: number;
  /** A run of `migrate-members` that has not finished: when it started, the last upstream id it wrote. */
  readonly syncStartedAt: number | null;
  readonly syncCursor: number | null;
  /** When the last finished run started: what a catch-up asks the upstream for is what changed since. */
  readonly lastSyncAt: number | null;
  /** Members written by the runs so far (new and updated). */
  readonly migrated: number;
  /** Passwords taken over at a login. */
  readonly captured: number;
  /** Calls to the upstream that failed (no answer, an error, a timeout). */
  readonly upstreamErrors: number;
  readonly lastError: string | null;
  readonly lastErrorAt: number | null;
}

/** A write to be made at the upstream: the endpoint and its parameters, without the credentials. */
export interface MirrorJob {
  readonly id: number;
  readonly accountId: number;
  readonly endpoint: 'create' | 'update';
  readonly params: ReadonlyArray<readonly [string, string]>;
  readonly attempts: number;
}

/** What the link's services need from storage. */
export interface UpstreamLinkStore {
  /** Creates the link, or replaces its settings (keeping its figures). */
  saveLink(accountId: number, settings: UpstreamLinkSettings, at: number): Promise<void>;
  /** Removes the link and its queued mirror writes; false when there was none. */
  removeLink(accountId: number): Promise<boolean>;
  findLink(accountId: number): Promise<UpstreamLink | undefined>;
  listLinks(): Promise<UpstreamLink[]>;

  /** A run's progress: the last upstream id written (members in id order), and how many were written. */
  recordSyncProgress(accountId: number, startedAt: number, cursor: number, written: number): Promise<void>;
  /** A run finished: the next one catches up from `startedAt`. */
  finishSync(accountId: number, startedAt: number): Promise<void>;
  recordUpstreamError(accountId: number, message: string, at: number): Promise<void>;

  /**
   * Replaces the mark of a member whose password was at the upstream with its hash, and
   * counts it; false when the member no longer has the mark (a password set meanwhile).
   */
  capturePassword(accountId: number, memberId: number, hash: string): Promise<boolean>;
  /** Members (not Deleted) whose password is still at the upstream. */
  countWaiting(accountId: number): Promise<number>;

  enqueueMirror(accountId: number, endpoint: MirrorJob['endpoint'], params: MirrorJob['params'], at: number): Promise<void>;
  /**
   * Takes the oldest due write of an account whose earlier writes are all done, for
   * `leaseMs`: a server that dies holding it lets it go when the lease ends. One server at a
   * time holds a write; an account's writes go in order.
   */
  claimMirror(now: number, leaseMs: number): Promise<MirrorJob | undefined>;
  finishMirror(id: number): Promise<void>;
  /** The write failed: kept, tried again at `nextAt`. */
  retryMirror(id: number, error: string, nextAt: number): Promise<void>;
  /** Writes waiting, and the error of the oldest one that failed. */
  mirrorBacklog(accountId: number): Promise<{ pending: number; lastError: string | null }>;
}
