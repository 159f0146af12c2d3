import pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres } from 'rate-limiter-flexible';
import Cursor from 'pg-cursor';
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql, type CompiledQuery } from 'kysely';
import type { Database } from '../schema.js';
import type { StoreErrorKind } from '../errors.js';
import { commitWatchingDialect, runWatched } from './postgres-commits.js';
import { choosesHost, hostChoosingClient, parsePostgresHosts } from './postgres-hosts.js';
import { ReplicaRouter } from './postgres-replicas.js';
import { preparingClient, StatementNames } from './postgres-prepared.js';
import { accountScope } from '../../common/account-scope.js';
import { equalsOneOf, prefixEnd, queryBuilder, type EngineConnection, type SearchSql, type SnapshotReader, type TransactionLocks } from './dialect.js';

/** Transaction-scoped advisory locks: released by the COMMIT or ROLLBACK, never by hand. */
const transactionLocks: TransactionLocks = {
  lock: (mode, ...keys) => sql`${sql.raw(mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock')}(${sql.join(keys)})`,
};

export interface PostgresOptions {
  /** Most connections the pool opens (to the primary, and to each standby). */
  poolSize?: number;
  /** Standbys that serve an account's long reads when they have what it must see (postgres-replicas.ts). */
  replicaUrls?: readonly string[];
  /** A standby further behind than this serves no read. */
  replicaMaxLagMs?: number;
}

/**
 * The tables whose statistics steer the members' plans. Without them (a new store, a large
 * import just made, autovacuum off or behind) a substring search of the logins read the
 * account's whole index of logins beside the trigram index: 114 ms, against 3 ms with them, at
 * a million members. The providers' notices too: planned while the table was new, a read of
 * one notice by its id went through the index billing_events_pending_subscription (the
 * account's notices, then a filter), which looked as good as the unique one on an empty table:
 * 0.37 ms of PostgreSQL's time a notice, at five thousand notices.
 */
const PLANNED_TABLES = ['members', 'member_search', 'member_fields', 'billing_events'];

/** A list of ids as one parameter (WriterConnection.anyOf): node-postgres sends an array as its text. */
const anyOf = (ids: readonly number[]) => sql<number>`any(${ids})`;

const INT8_OID = 20;

/** Dead rows a queue table may hold before vacuumQueues reclaims them. */
const QUEUE_DEAD_ROWS = 2000;

/**
 * PostgreSQL through a pg pool. int8 values (ids, instants in milliseconds) come back as
 * numbers: they stay far below 2^53.
 */
export function openPostgres(url: string, options: PostgresOptions = {}): EngineConnection {
  // Several hosts, or only a read-write one: each connection chooses (postgres-hosts.ts).
  const hosts = parsePostgresHosts(url);
  const chooses = choosesHost(hosts);
  const pool = new pg.Pool({
    connectionString: chooses ? hosts.url : url,
    // The statements sent again and again are named: parsed and planned once per connection.
    Client: preparingClient(chooses ? hostChoosingClient(hosts) : pg.Client, new StatementNames()),
    max: options.poolSize ?? 20,
    // Fail fast when the server is gone, so that clients get a 503 instead of a hang.
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30000,
    types,
  });
  // A client that loses its server emits 'error'; without a listener the process dies. The
  // pool listens only to idle clients, so every client gets a listener of its own too: one
  // held between queries (a transaction, a list streaming to a slow reader) may lose its
  // connection. It then fails its next query (503 to the caller) and the pool drops it.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  const replicas = options.replicaUrls?.length
    ? new ReplicaRouter(pool, { urls: options.replicaUrls, maxLagMs: options.replicaMaxLagMs ?? 1000, poolSize: options.poolSize ?? 20, types })
    : undefined;
  // Every statement is sent as it comes, with its parameters bound by the server; what may
  // have committed is watched (postgres-commits.ts). Once a write commits, the request's
  // accounts (every account, outside a request) read from the primary until a standby has it.
  const db = new Kysely<Database>({ dialect: commitWatchingDialect(pool, replicas && (() => replicas.noteWrites(accountScope.accounts()))) });
  return {
    engine: 'postgres',
    db,
    reads: db,
    async hotRead<R>(name: string, query: CompiledQuery<R>, parameters: readonly unknown[]): Promise<R[]> {
      return (await pool.query({ name, text: query.sql, values: [...parameters] })).rows as R[];
    },
    classifyError: classifyPostgresError,
    splitKeys: (keys) => sql`string_to_table(${keys}, ' ')`,
    search: postgresSearch,
    anyOf,
    transactionLocks,
    build: queryBuilder({
      createAdapter: () => new PostgresAdapter(),
      createQueryCompiler: () => new PostgresQueryCompiler(),
      createIntrospector: (db) => new PostgresIntrospector(db),
    }),
    // A write whose connection is lost runs again if it certainly was not made, and fails as
    // "may or may not have been made" if it may have been.
    async transact(procedure, ...args) {
      return runWatched(() => procedure.run({ engine: 'postgres', db, search: postgresSearch, anyOf, transactionLocks, writesInOneStatement: true }, ...args), connectionLost);
    },
    async *readSnapshot(work, options) {
      const onReplica = options?.account !== undefined ? await replicas?.snapshotFor(options.account) : undefined;
      if (onReplica) {
        let answered = false;
        try {
          for await (const value of inSnapshot(onReplica, work)) {
            answered = true;
            yield value;
          }
          return;
        } catch (error) {
          // A standby that fails, where the primary would not, before it answered anything
          // leaves the read to the primary (`work` runs again there); one that fails midway cannot.
          if (answered || !standbyFailure(error)) throw error;
          replicas!.fellBack();
        }
      }
      const client = await pool.connect();
      // The snapshot is taken at the first statement: take it now.
      try {
        await client.query('begin isolation level repeatable read read only');
        await client.query('select 1');
      } catch (error) {
        client.release(true);
        throw error;
      }
      yield* inSnapshot(client, work);
    },
    // Autovacuum's own threshold (50 rows, and a tenth of the table, changed since the last
    // ANALYZE), for where it is off or behind; an ANALYZE reads a sample of bounded size.
    async refreshStatistics() {
      const { rows } = await pool.query<{ name: string }>(
        'select relname as name from pg_stat_user_tables where schemaname = current_schema() and relname = any($1) and n_mod_since_analyze > 50 + 0.1 * n_live_tup',
        [PLANNED_TABLES],
      );
      for (const { name } of rows) await pool.query(`analyze (skip_locked) ${pg.escapeIdentifier(name)}`);
    },
    async vacuumQueues(tables) {
      // The statistics' count of dead rows: cheap to read, current to within a second or so.
      const { rows } = await pool.query<{ name: string }>(
        'select relname as name from pg_stat_user_tables where schemaname = current_schema() and relname = any($1) and n_dead_tup > $2',
        [tables, QUEUE_DEAD_ROWS],
      );
      // Outside any transaction (VACUUM cannot run in one); a table another vacuum holds is left for the next call.
      for (const { name } of rows) await pool.query(`vacuum (skip_locked) ${pg.escapeIdentifier(name)}`);
      return rows.map((row) => row.name);
    },
    async exclusively(name, work) {
      // A session lock on a connection of its own, held while `work` uses the others; it is
      // released with the connection if this process dies.
      const client = await pool.connect();
      let broken = false;
      try {
        const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock(hashtext($1)) as locked', [name]);
        if (!rows[0]?.locked) return undefined;
        try {
          return await work();
        } finally {
          await client.query('select pg_advisory_unlock(hashtext($1))', [name]).catch(() => (broken = true));
        }
      } finally {
        client.release(broken);
      }
    },
    async syncMemberIds() {
      await sql`select setval(pg_get_serial_sequence('members', 'id'), greatest((select max(id) from members), 1))`.execute(db);
    },
    // The table is made by the migrations; the sweep purges expired counters. Should the
    // database fail, this process counts in memory meanwhile (the library's insurance).
    rateLimiter: (options) =>
      new RateLimiterPostgres({
        ...options,
        storeClient: pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        clearExpiredByTimeout: false,
        insuranceLimiter: new RateLimiterMemory(options),
      }),
    async ping() {
      await pool.query('select 1');
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, replicas: replicas?.stats() }),
    async close() {
      await replicas?.close();
      await db.destroy();
    },
  };
}

const CURSOR_CLOSE_TIMEOUT_MS = 5000;

/**
 * A cursor read that fails when the connection is lost. pg-cursor alone can wait forever: if
 * the connection dies after the last rows' CommandComplete but before ReadyForQuery, the
 * cursor is already "done", ignores the error, and never answers the pending read.
 */
function readOrLost(client: pg.PoolClient, cursor: Cursor, rows: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const lost = (error?: unknown) => reject(error instanceof Error ? error : new Error('Connection terminated unexpectedly'));
    client.once('error', lost);
    client.once('end', lost);
    cursor
      .read(rows)
      .then(resolve, reject)
      .finally(() => {
        client.removeListener('error', lost);
        client.removeListener('end', lost);
      });
  });
}

/** Resolves when `promise` settles or after `ms`, whichever is first; never rejects. */
function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]).finally(() => clearTimeout(timer));
}

const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** `work` on a connection in a read snapshot, rolled back and released after, whatever happens. */
async function* inSnapshot<T>(client: pg.PoolClient, work: (reader: SnapshotReader) => AsyncGenerator<T>): AsyncGenerator<T> {
  let broken = false;
  try {
    yield* work(snapshotReader(client));
  } finally {
    // Read only: whether it ended well or not, a rollback is all there is to do.
    await client.query('rollback').catch(() => (broken = true));
    client.release(broken);
  }
}

/**
 * Reads in a snapshot's transaction. A stream is a protocol-level cursor (pg-cursor), read a
 * chunk at a time; no other query of the snapshot runs while it is open (a list's profile
 * fields come in its own rows, its count after it).
 */
function snapshotReader(client: pg.PoolClient): SnapshotReader {
  return {
    async all<R>(query: CompiledQuery<R>) {
      const result = await client.query(query.sql, query.parameters as unknown[]);
      return result.rows as R[];
    },
    async *stream<R>(query: CompiledQuery<R>, chunkSize: number) {
      const cursor = client.query(new Cursor(query.sql, query.parameters as unknown[], { types }));
      let failed = false;
      try {
        for (;;) {
          const chunk = (await readOrLost(client, cursor, chunkSize).catch((error: unknown) => {
            failed = true;
            throw error;
          })) as R[];
          if (chunk.length > 0) yield chunk;
          if (chunk.length < chunkSize) return;
        }
      } finally {
        // A cursor whose connection died would wait forever for the server to confirm the close.
        if (!failed) await withTimeout(cursor.close(), CURSOR_CLOSE_TIMEOUT_MS);
      }
    },
  };
}

/** A LIKE pattern that finds `text` anywhere, with LIKE's own characters escaped. */
function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * LIKE over the folded values, which pg_trgm's GIN indexes serve: the logins and addresses in
 * `member_search` (migration 023), the profile values in `member_fields` (migration 002). Whole
 * logins and addresses: `member_search`'s B-tree indexes (migration 024).
 */
export const postgresSearch: SearchSql = {
  keyTable: 'member_search',
  idsStartingWith(accountId, column, prefix, limit) {
    // Byte order, as migration 028's indexes keep it: a range of the index in any collation.
    const key = sql`(${sql.ref(`s.${column}`)} collate "C")`;
    return sql<{ id: number }>`select s.member_id as id from member_search s where s.account_id = ${accountId} and ${key} >= ${prefix} and ${key} < ${prefixEnd(prefix)} order by ${key} limit ${limit}`;
  },
  memberIs(accountId, column, keys, table = 'm') {
    return sql`${sql.ref(`${table}.id`)} in (select s.member_id from member_search s where s.account_id = ${accountId} and ${sql.ref(`s.${column}`)} ${equalsOneOf(keys)})`;
  },
  memberContains(accountId, column, text) {
    // Fewer than three characters make no trigram: a scan of the account's own members.
    if ([...text].length < 3) return sql`${sql.ref(`m.${column}`)} like ${containsPattern(text)}`;
    return sql`m.id in (select s.member_id from member_search s where s.account_id = ${accountId} and ${sql.ref(`s.${column}`)} like ${containsPattern(text)})`;
  },
  fieldContains(_accountId, text) {
    return sql`coalesce(f.value_key, f.value) like ${containsPattern(text)}`;
  },
  profileObject(names, memberId = 'm.id') {
    return sql`(select json_object_agg(f.name, f.value) from member_fields f where f.member_id = ${sql.ref(memberId)} and f.name in (${sql.join(names)}))`;
  },
};

/**
 * What a standby may fail a read with where the primary would answer it: lost or refusing
 * (classifyPostgresError's `unavailable`), its query cancelled by the WAL it replays (40001),
 * or a table or column that its replay has not brought yet (42P01, 42703: a migration just made).
 */
function standbyFailure(error: unknown): boolean {
  const { code } = (error ?? {}) as { code?: unknown };
  // `unavailable` covers a lost connection too (connectionLost's errors are among its own).
  return classifyPostgresError(error) === 'unavailable' || code === '40001' || code === '42P01' || code === '42703';
}

/**
 * The connection went away under a statement (a failover ending it, a reset): not one that
 * could not be opened, nor a statement the server refused.
 */
function connectionLost(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === '57P01' || code === '57P02' || (typeof code === 'string' && code.startsWith('08'))) return true;
  return typeof message === 'string' && /Connection terminated unexpectedly|encountered a connection error/i.test(message);
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'EAI_AGAIN']);
const CONNECTION_MESSAGES = /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed/i;

export function classifyPostgresError(error: unknown): StoreErrorKind | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code === '23505') return 'unique-violation';
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code)) return 'unavailable';
    // 08: connection exception; 53: insufficient resources; 57P: operator intervention
    // (a shutdown); 25006: a read-only transaction, as on a primary restarted read-only
    // while a failover promotes another (Patroni), or on a replica.
    if (/^(08|53|57P)/.test(code) || code === '25006') return 'unavailable';
  }
  if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return 'unavailable';
  return undefined;
}
