import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy to PostgreSQL that can be cut (all connections reset, new ones refused) and
 * restored, or frozen (nothing passes either way, connections stay open: a server that hangs),
 * or set to reset the one connection that sends a given statement (cutAt).
 */
export class CuttableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  private frozen = false;
  private trap: { text: string; after?: string } | undefined;

  /**
   * `database`: every connection's startup message names `to` instead of `from` (the same
   * length), so that this address leads to another database of the same server.
   */
  constructor(
    private readonly target: { host: string; port: number },
    private readonly database?: { from: string; to: string },
  ) {
    if (database && database.from.length !== database.to.length) throw new Error('the two names must have the same length');
  }

  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      // Client to server a chunk at a time, to see the statements sent; server to client as it comes.
      let armed = false;
      let started = false;
      client.on('data', (received: Buffer) => {
        let chunk = received;
        if (!started && this.database) chunk = Buffer.from(chunk.toString('latin1').replace(`\0${this.database.from}\0`, `\0${this.database.to}\0`), 'latin1');
        started = true;
        const trap = this.trap;
        if (trap && (armed || !trap.after)) {
          if (chunk.includes(trap.text)) {
            this.trap = undefined;
            client.resetAndDestroy();
            upstream.resetAndDestroy();
            return;
          }
        } else if (trap?.after && chunk.includes(trap.after)) armed = true;
        upstream.write(chunk);
      });
      upstream.pipe(client);
      if (this.frozen) for (const socket of [client, upstream]) socket.pause();
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server!.address() as { port: number }).port;
  }

  /** Nothing is forwarded, either way, until `thaw`: every query waits. */
  freeze(): void {
    this.frozen = true;
    for (const socket of this.sockets) socket.pause();
  }

  thaw(): void {
    this.frozen = false;
    for (const socket of this.sockets) socket.resume();
  }

  /**
   * The next connection to send `text` (after sending `after`, if given) is reset instead,
   * that chunk never reaching the server; once.
   */
  cutAt(text: string, options: { after?: string } = {}): void {
    this.trap = { text, after: options.after };
  }

  async cut(): Promise<void> {
    const closed = new Promise((resolve) => this.server?.close(resolve));
    for (const socket of this.sockets) socket.resetAndDestroy();
    await closed;
  }
}

/** A PostgreSQL URL that goes through the proxy. */
export function throughProxy(databaseUrl: string, proxy: CuttableProxy): string {
  const url = new URL(databaseUrl);
  url.port = String(proxy.port);
  return url.toString();
}

export function proxyFor(databaseUrl: string): CuttableProxy {
  const url = new URL(databaseUrl);
  return new CuttableProxy({ host: url.hostname, port: Number(url.port || 5432) });
}
