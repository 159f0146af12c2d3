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
  override readonly name = 'StoreUnavailable';
}
