/**
 * A TCP proxy in front of PostgreSQL that counts, on the wire, what its clients ask: round trips
 * (a Sync of the extended protocol, or a simple Query) and statements run (a Bind, or a simple
 * Query), and statements parsed (a Parse: a named statement already prepared on its connection
 * is bound without one). The bench points a server's DATABASE_URL at it to count what one
 * request costs the primary in messages, without touching the server's code.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface WireCounts {
  roundTrips: number;
  statements: number;
  parses: number;
}

export interface PgWire {
  /** The database URL with the proxy's address in place of PostgreSQL's. */
  readonly url: string;
  readonly counts: WireCounts;
  close(): Promise<void>;
}

/** The startup message's protocol numbers: SSLRequest and GSSENCRequest are answered by one byte, then the startup comes. */
const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

export async function startPgWire(databaseUrl: string): Promise<PgWire> {
  const target = new URL(databaseUrl);
  const counts: WireCounts = { roundTrips: 0, statements: 0, parses: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let started = false;
    let pending = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (!started) {
          // Untyped: length, then the protocol number.
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          const code = pending.readInt32BE(4);
          if (code !== SSL_REQUEST && code !== GSS_REQUEST) started = true;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        const type = String.fromCharCode(pending[0]!);
        if (type === 'Q') {
          counts.roundTrips++;
          counts.statements++;
        } else if (type === 'S') counts.roundTrips++;
        else if (type === 'B') counts.statements++;
        else if (type === 'P') counts.parses++;
        pending = pending.subarray(1 + length);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    counts,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
