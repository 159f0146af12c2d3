/**
 * Driver errors are translated at the store's edge, so nothing above it matches error text.
 * The dialects decide which driver error is which kind.
 */
import { StoreUnavailable, UniqueViolation } from '../common/store-errors.js';

export type StoreErrorKind = 'unique-violation' | 'unavailable';

export function translateError(classify: (error: unknown) => StoreErrorKind | undefined, error: unknown): unknown {
  if (error instanceof UniqueViolation || error instanceof StoreUnavailable) return error;
  switch (classify(error)) {
    case 'unique-violation':
      return new UniqueViolation('unique constraint violated', { cause: error });
    case 'unavailable':
      return new StoreUnavailable('store unavailable', { cause: error });
    default:
      return error;
  }
}
