import { createArgon2Hasher } from '../../src/auth/passwords.js';
import type { Harness } from './app.js';
import { apiAccount } from './member-api.js';

export const FAILURE_KINDS = ['unknown login', 'wrong password', 'deleted member', 'locked member'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/**
 * Times failed logins of the four kinds an attacker would like to tell apart, interleaved in
 * a random order each round, so that noise on a shared machine falls on all kinds alike.
 */
export interface FailedLoginTimes {
  readonly medians: Record<FailureKind, number>;
  readonly bodies: Set<string>;
  /** In how many rounds a wrong password (a member that exists) took longer than an unknown login: 0.5 is no signal. */
  readonly knownSlower: number;
}

export async function timeFailedLogins(h: Harness, rounds: number): Promise<FailedLoginTimes> {
  const api = await apiAccount(h, { lockout: { threshold: 1, stepSeconds: 3600, maxSeconds: 3600 } });
  await api.create('present');
  await api.create('locked');
  await api.insert({ login: 'deleted', status: 'D', passwordHash: await createArgon2Hasher().hash('correct-horse') });
  await api.login('locked', 'wrong-guess-1');
  const attempts: Record<FailureKind, [string, string]> = {
    'unknown login': ['nobody', 'wrong-horse'],
    'wrong password': ['present', 'wrong-horse'],
    'deleted member': ['deleted', 'correct-horse'],
    'locked member': ['locked', 'correct-horse'],
  };
  const samples = Object.fromEntries(FAILURE_KINDS.map((k) => [k, [] as number[]])) as Record<FailureKind, number[]>;
  const bodies = new Set<string>();
  for (let round = 0; round < rounds; round++) {
    for (const kind of [...FAILURE_KINDS].sort(() => Math.random() - 0.5)) {
      const [login, password] = attempts[kind];
      const started = process.hrtime.bigint();
      const reply = await h.post('/api2/login/', { user: api.user, login, password });
      samples[kind].push(Number(process.hrtime.bigint() - started) / 1e6);
      bodies.add(reply.body);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const knownSlower = samples['wrong password'].filter((known, round) => known > samples['unknown login'][round]!).length / rounds;
  return { medians: Object.fromEntries(FAILURE_KINDS.map((k) => [k, median(samples[k])])) as Record<FailureKind, number>, bodies, knownSlower };
}

export function spread(medians: Record<FailureKind, number>): number {
  const values = Object.values(medians);
  return Math.max(...values) / Math.min(...values);
}

/** Median time of a failed login at a member that exists over one at a login that does not. */
export function knownOverUnknown(medians: Record<FailureKind, number>): number {
  return medians['wrong password'] / medians['unknown login'];
}
