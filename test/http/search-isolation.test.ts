/**
 * A substring search costs the searching account what its own data costs, whatever other
 * accounts hold: its time cannot tell whether another tenant has a match. Account A holds
 * 20,000 members whose login and profile contain "lorem"; account B holds one. B's searches
 * for "lorem" (in A's data) and for "qzxjv" (in nobody's) take the same time. (Before the
 * search index was scoped by account, SQLite's took 15 times longer for "lorem".)
 */
import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';
import { figure } from '../support/report.js';

const MEMBERS = 20_000;
const ROUNDS = 30;

describeEachEngineApp('substring search isolation', (h) => {
  it('costs an account the same whether another account matches or not', async () => {
    const big = await apiAccount(h());
    const small = await apiAccount(h());
    for (let start = 0; start < MEMBERS; start += 1000) {
      await h().store.transfer.writeImport(big.account.id, {
        inserts: Array.from({ length: 1000 }, (_, i) => ({
          login: `lorem.ipsum${start + i}`,
          email: `lorem${start + i}@example.com`,
          passwordHash: 'x',
          profile: new Map([['bio', `lorem ipsum dolor ${start + i}`]]),
        })),
        updates: [],
        now: Date.now(),
        origin: { actor: 'import' },
      });
    }
    await small.create('solo', { bio: 'nothing to see' });
    const time = async (params: Record<string, string>) => {
      const started = performance.now();
      const reply = await small.list(params);
      expect(reply.members_total, JSON.stringify(reply)).toBe(0);
      return performance.now() - started;
    };
    const samples: Record<string, number[]> = { matchElsewhere: [], matchNowhere: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, text] of [
        ['matchElsewhere', 'lorem'],
        ['matchNowhere', 'qzxjv'],
      ] as const) {
        samples[kind]!.push(
          (await time({ profile: text, limit: '20' })) + (await time({ login: text, limit: '20' })) + (await time({ 'profile:bio': text, limit: '20' })),
        );
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const ratio = median(samples.matchElsewhere!) / median(samples.matchNowhere!);
    figure(
      `search isolation [${h().store.engine}] another account matches / nobody matches, median of 3 searches`,
      `${median(samples.matchElsewhere!).toFixed(2)} ms / ${median(samples.matchNowhere!).toFixed(2)} ms = ${ratio.toFixed(2)}`,
    );
    expect(ratio).toBeLessThan(1.5);
  }, 120_000);
});
