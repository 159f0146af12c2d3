/** Milliseconds since the epoch. Rules that depend on time take one, so tests can set it. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();
