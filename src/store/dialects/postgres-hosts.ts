/**
 * A DATABASE_URL naming several PostgreSQL servers, as libpq takes it, for sites without
 * HAProxy in front of their cluster:
 *
 *   postgres://USER@HOST1:PORT1,HOST2:PORT2/DATABASE?target_session_attrs=read-write
 *
 * node-postgres connects to one host. Here each new connection goes to the first server, in
 * the order given, that answers, and with `target_session_attrs=read-write` to the first that
 * takes writes (`SHOW transaction_read_only` is off: not a standby, nor a primary restarted
 * read-only), as libpq chooses. A connection already open is not moved: after a failover its
 * server ends it, and the next one goes to the new primary.
 */
import pg from 'pg';
import { maskPassword } from '../../common/text.js';
import { postgresUrlParts, unencodedCredentials } from './location.js';

export interface PostgresHosts {
  /** The URL with the first host only and without `target_session_attrs`: what pg reads. */
  readonly url: string;
  readonly hosts: ReadonlyArray<{ readonly host: string; readonly port: number }>;
  readonly readWrite: boolean;
}

/** Splits a DATABASE_URL's host list (`HOST[:PORT]`, an IPv6 address in brackets), or says what is wrong with it. */
export function parsePostgresHosts(url: string): PostgresHosts {
  const unreadable = unencodedCredentials(url);
  if (unreadable) throw new Error(unreadable);
  const parts = postgresUrlParts(url);
  if (!parts) return { url, hosts: [], readWrite: false };
  const { scheme, user, rest } = parts;
  const hosts = parts.hosts.split(',').map((entry) => {
    const found = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry) ?? /^([^:[\]]*)(?::(\d+))?$/.exec(entry);
    if (!found) throw new Error(`DATABASE_URL: "${entry}" is not a HOST or HOST:PORT (in ${maskPassword(url)})`);
    return { host: found[1] || 'localhost', port: Number(found[2] ?? 5432) };
  });
  const queryAt = rest.indexOf('?');
  const query = new URLSearchParams(queryAt < 0 ? '' : rest.slice(queryAt + 1));
  const attrs = query.get('target_session_attrs') ?? 'any';
  if (attrs !== 'any' && attrs !== 'read-write') throw new Error(`DATABASE_URL: target_session_attrs must be any or read-write, not "${attrs}"`);
  query.delete('target_session_attrs');
  const first = hosts[0]!;
  const host = first.host.includes(':') ? `[${first.host}]` : first.host;
  const path = queryAt < 0 ? rest : rest.slice(0, queryAt);
  const search = query.toString();
  return { url: `${scheme}${user}${host}:${first.port}${path}${search ? `?${search}` : ''}`, hosts, readWrite: attrs === 'read-write' };
}

/** Whether the URL needs a client that chooses among hosts (several, or a read-write one asked). */
export const choosesHost = (hosts: PostgresHosts): boolean => hosts.hosts.length > 1 || hosts.readWrite;

/** A pg Client class that connects each new client to the server `hosts` chooses (see above). */
export function hostChoosingClient(hosts: PostgresHosts): typeof pg.Client {
  return class HostChoosingClient extends pg.Client {
    private readonly options: string | pg.ClientConfig | undefined;

    constructor(options?: string | pg.ClientConfig) {
      super(options);
      this.options = options;
    }

    // pg-pool connects with a callback; anything else with a promise.
    override connect(): Promise<pg.Client>;
    override connect(callback: (error: Error) => void): void;
    override connect(callback?: (error: Error) => void): Promise<pg.Client> | void {
      const connecting = this.chooseHost().then(({ host, port }) => {
        this.host = host;
        this.port = port;
        return super.connect();
      });
      if (!callback) return connecting;
      connecting.then(
        () => (callback as (error: Error | undefined) => void)(undefined),
        (error: Error) => callback(error),
      );
    }

    /** The first host that answers (and, if asked, takes writes), asked with a short-lived client of its own. */
    private async chooseHost(): Promise<{ host: string; port: number }> {
      const refusals: string[] = [];
      for (const candidate of hosts.hosts) {
        const probe = new pg.Client(this.options);
        probe.host = candidate.host;
        probe.port = candidate.port;
        probe.on('error', () => {});
        try {
          await probe.connect();
          if (!hosts.readWrite) return candidate;
          const { rows } = await probe.query<{ transaction_read_only: string }>('show transaction_read_only');
          if (rows[0]?.transaction_read_only === 'off') return candidate;
          refusals.push(`${candidate.host}:${candidate.port} is read-only`);
        } catch (error) {
          refusals.push(`${candidate.host}:${candidate.port}: ${(error as Error).message}`);
        } finally {
          await probe.end().catch(() => {});
        }
      }
      // A connection error (SQLSTATE 08001): the store is unavailable, as when one server is down.
      throw Object.assign(new Error(`no server of DATABASE_URL can be used now (${refusals.join('; ')})`), { code: '08001' });
    }
  };
}
