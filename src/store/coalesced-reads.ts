/**
 * Look-ups by key asked in the same turn of the event loop, answered by one query. A session
 * check is a round trip to PostgreSQL on every protected page: under load, the checks that
 * arrive together share one (one statement, one socket write, one wake-up) instead of one each.
 * Alone, a look-up waits for nothing but the end of its turn.
 */
export class CoalescedReads<K, V> {
  private waiting = new Map<K, Array<{ resolve: (value: V | undefined) => void; reject: (error: unknown) => void }>>();
  private scheduled = false;

  /**
   * @param readMany answers the values of the keys it is given (at most `most` of them) by key;
   *   a key it leaves out is not found.
   */
  constructor(
    private readonly readMany: (keys: K[]) => Promise<Map<K, V>>,
    private readonly most = 100,
  ) {}

  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const callers = this.waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        // After the turn's I/O callbacks: every request read in this turn is in the batch.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting;
    this.waiting = new Map();
    const keys = [...batch.keys()];
    for (let at = 0; at < keys.length; at += this.most) {
      const part = keys.slice(at, at + this.most);
      this.readMany(part).then(
        (found) => {
          for (const key of part) for (const caller of batch.get(key)!) caller.resolve(found.get(key));
        },
        (error: unknown) => {
          for (const key of part) for (const caller of batch.get(key)!) caller.reject(error);
        },
      );
    }
  }
}
