/**
 * Named (prepared) statements for the statements a server sends again and again. A statement
 * sent without a name is parsed, analysed and planned by PostgreSQL every time; one sent with a
 * name is parsed once per connection, and after five executions PostgreSQL keeps one generic
 * plan for it when that plan looks no costlier than the ones made for each execution's values
 * (`plan_cache_mode` `auto`). For the short statements of a member's update, login or session
 * check, planning was most of what the primary spent on them.
 *
 * Which statements: a text with parameters is named once it has been sent REPEATS times, up
 * to NAMED texts in all (each connection keeps a plan for each it is sent, so the number is
 * what bounds the memory the primary gives them). Never named:
 * - a text that compares with a parameter by order (`<`, `<=`, `>`, `>=`) or a pattern
 *   (`like`): how many rows it reads depends on the value, which a generic plan does not know.
 *   A check for a due expiration (`exp_time_at <= $1`) planned once as a scan of the account
 *   took 0.3 s a request at a million members; planned for its value, it reads one index entry.
 *   Except the ranges of a primary key (`"id" > $2`): the chunks an update reads and writes
 *   one after the other, and a list's next page, are ranges of the (account, id) indexes
 *   whatever the value, and an update of one member sent three of them, each parsed and
 *   planned again, to PostgreSQL. And a comparison written value first (`$3 < "exp_time_at"`):
 *   the way a statement that finds its rows otherwise (a member by its id) says that the
 *   comparison only filters them (a login's statement, whose planning was 0.4 ms of the 1.5
 *   its primary spent). `<>` is no order comparison;
 * - (and a constant a partial index's condition names must be a literal in a named statement:
 *   `outcome <> 'ok'`, not `outcome <> $2`, or the generic plan cannot use that index);
 * - a text with more than PARAMETERS parameters (a list of ids whose length varies with the
 *   request) or longer than LONGEST characters: its texts are too many to name, and its cost
 *   is the rows it reads, not its plan;
 * - a text without parameters: a transaction's BEGIN or COMMIT, which PostgreSQL does not
 *   plan, or a rare read of a constant.
 *
 * A named statement lives on its connection: a transaction-pooling PgBouncer breaks it (see
 * docs/operating.md, which asks for session pooling).
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

const REPEATS = 3;
const NAMED = 400;
const PARAMETERS = 128;
const LONGEST = 8_000;
/** Texts whose uses are counted before naming; past it the counts start again. */
const COUNTED = 10_000;
/** A comparison by order with a parameter after it (`<= $3`, `> cast($1 as bigint)`; not `<> $1`), or a pattern match. */
const SELECTS_BY_VALUE = /(<(?!>)=?|(?<!<)>=?)\s*(\$\d|cast\(\$)|\b(i?like|similar to)\b/i;
/** A range of a primary key (`"m"."id" > $3`, `id <= $1`): left out before SELECTS_BY_VALUE is asked. */
const KEY_RANGE = /(?:(?:"\w+"|\w+)\.)?(?:"id"|\bid\b)\s*(?:<=?|>=?)\s*(?:\$\d+|cast\(\$\d+ as \w+\))/gi;

/** The name of each text named, and how often each text not named yet was sent. */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private counts = new Map<string, number>();
  /** Texts found to select by value (SELECTS_BY_VALUE), not tested again. */
  private readonly unnamed = new Set<string>();

  /** The name to send `text` under, or undefined to send it unnamed. */
  nameOf(text: string, parameters: number): string | undefined {
    const named = this.names.get(text);
    if (named !== undefined) return named;
    if (this.names.size >= NAMED || parameters === 0 || parameters > PARAMETERS || text.length > LONGEST) return undefined;
    if (this.unnamed.has(text)) return undefined;
    if (SELECTS_BY_VALUE.test(text.replace(KEY_RANGE, ''))) {
      if (this.unnamed.size >= COUNTED) this.unnamed.clear();
      this.unnamed.add(text);
      return undefined;
    }
    const seen = (this.counts.get(text) ?? 0) + 1;
    if (seen < REPEATS) {
      if (this.counts.size >= COUNTED) this.counts = new Map();
      this.counts.set(text, seen);
      return undefined;
    }
    this.counts.delete(text);
    const name = `m_${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    this.names.set(text, name);
    return name;
  }

  get size(): number {
    return this.names.size;
  }
}

/**
 * A pg Client class (from `Base`) that sends the texts `names` chooses as named statements.
 * Kysely sends every statement as `query(text, parameters)`; other calls (a cursor, a query
 * given as an object) go through as they are.
 */
export function preparingClient(Base: typeof pg.Client, names: StatementNames): typeof pg.Client {
  return class PreparingClient extends Base {
    // (pg's overloads: the implementation takes what each of them takes.)
    override query(...args: unknown[]): never {
      const query = super.query as unknown as (...rest: unknown[]) => never;
      const [text, values] = args;
      if (typeof text === 'string' && Array.isArray(values) && args.length === 2) {
        const name = names.nameOf(text, values.length);
        if (name !== undefined) return query.call(this, { name, text, values });
      }
      return query.apply(this, args);
    }
  } as typeof pg.Client;
}
