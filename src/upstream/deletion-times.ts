/**
 * When members were deleted at the upstream, as far as its /list/ tells: the seed's list gives
 * no deletion time, only the members "deleted in the last NNN seconds" (`limitd=NNNs`). So it
 * is asked for a few windows, the largest first, ids only. A member listed in a window but not
 * in the next smaller one, asked after it, was deleted before that one began: that moment is
 * the latest the member can have been deleted, and is its deletion time here. The latest
 * rather than the earliest, so that a login is never freed before the retention counted from
 * the real deletion ends. A member of the smallest window (or one deleted while the windows
 * were asked) has no bound: the migration stamps it with the run's time.
 */
import type { Clock } from '../common/clock.js';

/** Windows under the retention that narrow a deletion time down: an hour, a day, a week. */
export const DELETION_WINDOWS_SECONDS: readonly number[] = [3_600, 86_400, 7 * 86_400];

interface Answer {
  readonly seconds: number;
  /** Our clock once the upstream had answered: it listed as of no later than this. */
  readonly at: number;
}

export class DeletionTimes {
  private constructor(
    /** The windows asked, the largest first. */
    private readonly answers: readonly Answer[],
    /** Each member of the largest window, and the index of the smallest window that lists it (every larger one does too). */
    private readonly deepest: ReadonlyMap<number, number>,
  ) {}

  /** Asks `list` (the upstream's ids deleted within so many seconds) for each window, largest first. */
  static async ask(
    list: (seconds: number) => AsyncIterable<Readonly<Record<string, string>>>,
    windows: readonly number[],
    clock: Clock,
  ): Promise<DeletionTimes> {
    const descending = [...new Set(windows)].filter((seconds) => seconds > 0).sort((a, b) => b - a);
    const answers: Answer[] = [];
    const deepest = new Map<number, number>();
    for (const [index, seconds] of descending.entries()) {
      for await (const member of list(seconds)) {
        const id = Number(member.id);
        // A member the larger windows missed was deleted since they were asked: it gets no bound.
        if (index === 0 || deepest.get(id) === index - 1) deepest.set(id, index);
      }
      answers.push({ seconds, at: clock() });
    }
    return new DeletionTimes(answers, deepest);
  }

  /** Members the largest window lists. */
  get count(): number {
    return this.deepest.size;
  }

  /** The latest the member can have been deleted (ms), or undefined: lately, or not known to the windows. */
  latest(id: number): number | undefined {
    const index = this.deepest.get(id);
    const next = index === undefined ? undefined : this.answers[index + 1];
    return next === undefined ? undefined : next.at - next.seconds * 1000;
  }
}
