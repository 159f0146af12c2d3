/**
 * Reads asked on every request (an account by its name, with its keys; a login's member and
 * failure counts; a session), built and compiled by Kysely once, then run with each call's
 * values through StoreConnection.hotRead: building and compiling such a query cost the server
 * more CPU than the database spent answering it.
 *
 * A value that changes from call to call is a slot of the query as it is built: `values.login`
 * below stands for the login each run gives.
 *
 *   const byLogin = hotRead<MemberRow, { accountId: number; login: string }>('member_by_login', (values) =>
 *     reads.selectFrom('members').selectAll().where('account_id', '=', values.accountId).where('login_key', '=', values.login));
 *   const rows = await byLogin.run(connection, { accountId, login: foldKey(login) });
 *
 * A slot is a parameter of the statement, never part of its text, so the query built must not
 * look at it. A slot read as a value (compared, written into a template or the text) throws,
 * and one that is not a parameter of the compiled statement is refused; a branch on `typeof`
 * is not caught (SearchSql.memberIs, say, compares `= key` for a string and `in (…)` for a list:
 * give it a list of one slot).
 *
 * On PostgreSQL each is a named statement from its first use, planned once for any values: a
 * hot read is a look-up by key, comparing by equality only (postgres-prepared.ts says why an
 * order comparison must be planned for its values).
 */
import type { Compilable, CompiledQuery } from 'kysely';
import type { StoreConnection } from './writes.js';

/**
 * A value given at each run (see hotRead), a parameter of the compiled statement. It refuses to
 * be read as a value (a comparison, a template, JSON), so that a query that looks at it fails
 * when it is compiled; `typeof` cannot be stopped: a branch on it is the caller's to avoid.
 */
class Slot {
  constructor(readonly name: string) {}

  [Symbol.toPrimitive](): never {
    throw new Error(`hot read: the slot ${this.name} is a parameter, not a value to read while the query is built`);
  }

  toJSON(): never {
    return this[Symbol.toPrimitive]();
  }
}

export class HotRead<R, V extends Record<string, unknown>> {
  constructor(
    /** Its name among the connection's statements: on PostgreSQL the prepared statement's. */
    readonly name: string,
    private readonly query: CompiledQuery<R>,
  ) {}

  /** The rows the read answers for `values` (at once on SQLite, where the read is synchronous). */
  run(connection: Pick<StoreConnection, 'hotRead'>, values: V): R[] | Promise<R[]> {
    const parameters = this.query.parameters.map((parameter) => (parameter instanceof Slot ? values[parameter.name] : parameter));
    return connection.hotRead(this.name, this.query, parameters);
  }
}

/** A read compiled once (see above); `build` gets the slots by the names of `V`'s values, and answers a query (or a raw one compiled). */
export function hotRead<R, V extends Record<string, unknown>>(name: string, build: (values: V) => Compilable<R> | CompiledQuery<R>): HotRead<R, V> {
  const asked = new Set<string>();
  const slots = new Proxy({} as V, {
    get(_target, key) {
      asked.add(String(key));
      return new Slot(String(key));
    },
  });
  const built = build(slots);
  const query = 'compile' in built ? built.compile() : built;
  const bound = new Set(query.parameters.flatMap((parameter) => (parameter instanceof Slot ? [parameter.name] : [])));
  const lost = [...asked].filter((slot) => !bound.has(slot));
  if (lost.length > 0) throw new Error(`hot read ${name}: ${lost.join(', ')} not a parameter of the statement`);
  return new HotRead(name, query);
}
