/**
 * The errors a store answers with, whatever engine is underneath: what storage and its users
 * (the services, the HTTP layer) agree on. The store translates driver errors into these at
 * its edge (store/errors.ts), so nothing above it matches error text.
 */

/** A write broke a uniqueness rule (a login taken, an account name taken, an id taken). */
export class UniqueViolation extends Error {
  override readonly name = 'UniqueViolation';
}

/** The store cannot be reached or cannot take the request now; the HTTP layer answers 503. */
export class StoreUnavailable extends Error {
  override readonly name: string = 'StoreUnavailable';
}

/**
 * The store was lost while a change may have been committing (its COMMIT sent, or a statement
 * that commits by itself): the change may or may not have been made. Still a 503; the answer
 * says so, and nothing retries it blindly (a second /create/ could make a second member).
 */
export class StoreOutcomeUnknown extends StoreUnavailable {
  override readonly name = 'StoreOutcomeUnknown';
}

/**
 * The store to open is not there, and the caller asked not to make one (a command other than
 * `serve`, `migrate` and `account create`, run where the server's store is not). `location`
 * says which store was looked for (a SQLite file's absolute path).
 */
export class StoreNotFound extends Error {
  override readonly name = 'StoreNotFound';
  constructor(readonly location: string) {
    super(`no store at ${location}`);
  }
}
