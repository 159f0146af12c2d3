/**
 * Nothing about a failed login tells which logins exist. The answers are byte-identical; the
 * times are compared on interleaved samples: every failed attempt does the same work (a dummy
 * verification when there is no member, the same failure-count write for every kind), so the
 * medians stay within 20% of each other in the suite. `npm run reliability` takes more samples
 * and holds a member that exists against one that does not to 5%.
 */
import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { knownOverUnknown, spread, timeFailedLogins } from '../support/enumeration.js';
import { figure, REPORTING } from '../support/report.js';

/** The report takes many more samples and holds the spread to the 20% target. */
const ROUNDS = REPORTING ? 300 : 30;
const BOUND = 1.2;
const KNOWN_BOUND = REPORTING ? 1.05 : 1.2;

describeEachEngineApp('login enumeration', (h) => {
  it('answers an unknown login, a wrong password, a deleted and a locked member identically, in about the same time', async () => {
    const { medians, bodies, knownSlower } = await timeFailedLogins(h(), ROUNDS);
    figure(
      `enumeration [${h().store.engine}] median ms over ${ROUNDS} interleaved rounds`,
      Object.fromEntries(Object.entries(medians).map(([k, v]) => [k, Number(v.toFixed(2))])),
    );
    figure(`enumeration [${h().store.engine}] slowest/fastest median`, spread(medians).toFixed(3));
    figure(
      `enumeration [${h().store.engine}] known/unknown login median; P(known slower)`,
      `${knownOverUnknown(medians).toFixed(3)}; ${knownSlower.toFixed(2)}`,
    );
    expect([...bodies]).toEqual(['{"result":"FAIL","message":"wrong login or password","fail_url":""}']);
    expect(spread(medians), JSON.stringify(medians)).toBeLessThan(BOUND);
    expect(Math.abs(knownOverUnknown(medians) - 1), JSON.stringify(medians)).toBeLessThan(KNOWN_BOUND - 1);
  }, 300_000);

  it('answers an unknown account and a wrong key byte for byte alike', async () => {
    const { user } = await h().newAccount();
    const wrongKey = await h().post('/api2/list/', { user, api_key: 'x'.repeat(43) });
    const unknownUser = await h().post('/api2/list/', { user: 'no-such-account', api_key: 'x'.repeat(43) });
    expect(wrongKey.status).toBe(unknownUser.status);
    expect(wrongKey.body).toBe(unknownUser.body);
    expect(wrongKey.headers['content-length']).toBe(unknownUser.headers['content-length']);
  });
});
