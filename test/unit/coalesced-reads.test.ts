import { describe, expect, it } from 'vitest';
import { CoalescedReads } from '../../src/store/coalesced-reads.js';

describe('CoalescedReads', () => {
  it('reads the keys asked in one turn with one call, each caller answered its own value', async () => {
    const calls: string[][] = [];
    const reads = new CoalescedReads(async (keys: string[]) => {
      calls.push(keys);
      return new Map(keys.filter((key) => key !== 'missing').map((key) => [key, key.toUpperCase()]));
    });
    const answers = await Promise.all(['a', 'b', 'a', 'missing'].map((key) => reads.get(key)));
    expect(answers).toEqual(['A', 'B', 'A', undefined]);
    expect(calls).toEqual([['a', 'b', 'missing']]);
    // A later turn is a call of its own.
    expect(await reads.get('c')).toBe('C');
    expect(calls).toEqual([['a', 'b', 'missing'], ['c']]);
  });

  it('splits a turn over `most` keys into several calls', async () => {
    const calls: number[][] = [];
    const reads = new CoalescedReads(async (keys: number[]) => {
      calls.push(keys);
      return new Map(keys.map((key) => [key, key * 2]));
    }, 2);
    expect(await Promise.all([1, 2, 3, 4, 5].map((key) => reads.get(key)))).toEqual([2, 4, 6, 8, 10]);
    expect(calls).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('rejects every caller of a call that fails, and only those', async () => {
    const reads = new CoalescedReads(async (keys: string[]) => {
      if (keys.includes('bad')) throw new Error('store unavailable');
      return new Map(keys.map((key) => [key, key]));
    }, 2);
    const answers = await Promise.allSettled(['bad', 'x', 'y'].map((key) => reads.get(key)));
    expect(answers.map((answer) => answer.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect((answers[0] as PromiseRejectedResult).reason).toEqual(new Error('store unavailable'));
    expect(await reads.get('x')).toBe('x');
  });
});
