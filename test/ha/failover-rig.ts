import { runCli, startServe, type Served } from '../support/cli.js';
import { freePort, HaStack, type PatroniNode } from '../support/ha-stack.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { FailoverLoad } from './failover-load.js';

/**
 * The stack of docs/beyond-one-machine.md under load, for the failover test and its bench:
 * a Patroni cluster (test/support/ha-stack.ts), two member-api servers on HAProxy's primary
 * port (the sweep every second, metrics on a port of their own), a webhook receiving the demo
 * account's member.created events, and a client load through both servers.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One leader killed, as clients and Patroni saw it (seconds from the kill). */
export interface Outage {
  what: string;
  /** When the kill was sent (ms since the epoch); the other times are seconds from it. */
  killedAt: number;
  /** The last write answered OK before the kill, and the first one sent after it answered OK. */
  lastOkBefore: number;
  firstOkAfter: number;
  /** When a node took writes again, asked directly (not through HAProxy): Patroni's own time. */
  promoted: number;
  /** When both servers had answered a write again and /readyz said ready. */
  ready: number;
  /** 503s answered between the two OKs. */
  refused: number;
}

export class FailoverRig {
  readonly outages: Outage[] = [];

  private constructor(
    readonly stack: HaStack,
    readonly servers: Served[],
    readonly metricsPorts: number[],
    readonly load: FailoverLoad,
    readonly receiver: Receiver,
  ) {}

  static async start(options: { synchronous: boolean } = { synchronous: true }): Promise<FailoverRig> {
    const stack = await HaStack.start();
    try {
      if (!options.synchronous) await stack.setSynchronousMode(false);
      const metricsPorts = [await freePort(), await freePort()];
      const env = (i: number) => ({
        DATABASE_URL: stack.primaryUrl(),
        SWEEP_INTERVAL_SECONDS: '1',
        METRICS_PORT: String(metricsPorts[i]),
        WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
      });
      const servers = [await startServe(env(0))];
      servers.push(await startServe(env(1)));
      const receiver = await startReceiver();
      const added = await runCli(['webhook', 'add', '--account', 'demo', '--url', receiver.url, '--events', 'member.created'], env(0));
      if (added.code !== 0) throw new Error(`webhook add: ${added.stderr}`);
      const load = new FailoverLoad(
        servers.map((s) => s.url),
        servers[0]!.demoKey(),
      );
      load.start();
      await sleep(2000);
      return new FailoverRig(stack, servers, metricsPorts, load, receiver);
    } catch (error) {
      await stack.stop();
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.load.stop();
    for (const server of this.servers) server.child.kill('SIGTERM');
    await this.receiver.close();
    await this.stack.stop();
  }

  /** `kill -9` of the leader's postmaster; Patroni starts it again and it leads again, or another does. */
  async killLeaderPostmaster(): Promise<Outage> {
    const leader = (await this.stack.leader())!;
    const killedAt = Date.now();
    this.stack.killPostmaster(leader);
    const outage = await this.outage(`postmaster of the leader ${leader.name}`, killedAt);
    await this.stack.waitForCluster(3, 60_000);
    return outage;
  }

  /** `kill -9` of the leader's Patroni and postmaster together (the machine gone); another node is promoted. */
  async killLeader(): Promise<{ outage: Outage; gone: PatroniNode }> {
    const gone = (await this.stack.leader())!;
    const killedAt = Date.now();
    await this.stack.killNode(gone);
    return { outage: await this.outage(`Patroni and postmaster of the leader ${gone.name}`, killedAt, gone), gone };
  }

  /** The killed node started again: it rejoins as a standby (pg_rewind when it had gone ahead). */
  async rejoin(node: PatroniNode): Promise<void> {
    this.stack.startPatroni(node);
    await this.stack.waitForCluster(3, 90_000);
  }

  private async outage(what: string, killedAt: number, gone?: PatroniNode): Promise<Outage> {
    const promotedAt = await this.primaryTakesWrites(gone);
    const readyAt = await this.serversBack(killedAt);
    const { lastOkBefore, firstOkAfter } = this.load.writeOutage(killedAt);
    const refused = this.load.answers.filter((a) => a.status === 503 && a.sent >= lastOkBefore && a.at <= firstOkAfter).length;
    const s = (t: number) => (t - killedAt) / 1000;
    const outage = { what, killedAt, lastOkBefore: s(lastOkBefore), firstOkAfter: s(firstOkAfter), promoted: s(promotedAt), ready: s(readyAt), refused };
    this.outages.push(outage);
    return outage;
  }

  /** Until the node that leads (not `exclude`) takes writes, asked directly. */
  private async primaryTakesWrites(exclude?: PatroniNode): Promise<number> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const leader = await this.stack.leader();
      if (leader && leader !== exclude) {
        const writable = await this.stack
          .query<{ ok: boolean }>(this.stack.nodeUrl(leader), 'select not pg_is_in_recovery() as ok')
          .then(([row]) => row?.ok)
          .catch(() => false);
        if (writable) return Date.now();
      }
      if (Date.now() > deadline) throw new Error(`no primary took writes:\n${this.stack.output()}`);
      await sleep(50);
    }
  }

  /** Until both servers have answered a write sent after `since` and say they are ready. */
  private async serversBack(since: number): Promise<number> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const wrote = (server: number) => this.load.answers.some((a) => a.server === server && a.sent > since && a.call !== 'login' && a.result === 'OK');
      const ready = await Promise.all(this.servers.map(async (s) => (await fetch(`${s.url}/readyz`).catch(() => undefined))?.status === 200));
      if (wrote(0) && wrote(1) && ready.every(Boolean)) return Date.now();
      if (Date.now() > deadline) throw new Error(`the servers did not answer writes again:\n${this.stack.output()}`);
      await sleep(100);
    }
  }

  /** Acknowledged writes not on the primary the cluster ended with. */
  async lostWrites(): Promise<{ creates: string[]; updates: string[]; acknowledgedAt: number[] }> {
    const rows = await this.stack.query<{ login: string; email: string }>(this.stack.primaryUrl(), 'select login, email from members');
    const onPrimary = new Map(rows.map((r) => [r.login, r.email]));
    const { created, updated } = this.load.acknowledged;
    const creates = [...created].filter((login) => !onPrimary.has(login));
    const updates = [...updated].filter(([login, email]) => onPrimary.has(login) && onPrimary.get(login) !== email).map(([login]) => login);
    const lost = new Set([...creates, ...updates]);
    const acknowledgedAt = this.load.answers
      .filter((a) => lost.has(a.login) && a.result === 'OK' && (a.call === 'create' || a.call === 'update'))
      .map((a) => a.at);
    return { creates, updates, acknowledgedAt };
  }

  /** Sessions answered by /login/ that a check no longer finds. */
  async lostSessions(): Promise<string[]> {
    const lost: string[] = [];
    for (const [i, [login, session]] of [...this.load.acknowledged.sessions].entries()) {
      const server = this.servers[i % this.servers.length]!;
      const answer = await fetch(`${server.url}/api2/session/`, { method: 'POST', body: new URLSearchParams({ user: 'demo', session }) });
      const body = (await answer.json()) as { result: string; login?: string };
      if (body.result !== 'OK' || body.login !== login) lost.push(login);
    }
    return lost;
  }

  /**
   * A member locked out before the switches (three wrong passwords, the demo account's
   * threshold set to 3 for 10 minutes): its login, to check the lock held after them.
   */
  async lockOutMember(): Promise<string> {
    await this.cli(['account', 'set', 'demo', '--lockout-threshold', '3', '--lockout-step', '600', '--lockout-max', '900']);
    // The servers read an account's settings again after a second at most.
    await sleep(1500);
    const login = 'locked-out';
    await this.api('create', { api_key: this.servers[0]!.demoKey(), _login: login, _email: 'locked-out@example.com', _password: 'right-password' });
    for (let i = 0; i < 3; i++) await this.api('login', { login, password: 'wrong-password' });
    return login;
  }

  /** Whether the right password is refused (a lock), and accepted once `member unlock` forgot the failures. */
  async lockedThenUnlocked(login: string): Promise<{ whileLocked: string; afterUnlock: string }> {
    const whileLocked = (await this.api('login', { login, password: 'right-password' })).result;
    await this.cli(['member', 'unlock', login, '--account', 'demo']);
    const afterUnlock = (await this.api('login', { login, password: 'right-password' })).result;
    return { whileLocked, afterUnlock };
  }

  /** A call of the demo account's API, through the first server. */
  private async api<T = { result: string }>(call: string, params: Record<string, string>): Promise<T> {
    const answer = await fetch(`${this.servers[0]!.url}/api2/${call}/`, { method: 'POST', body: new URLSearchParams({ user: 'demo', ...params }) });
    return (await answer.json()) as T;
  }

  /** A `member-api` command on the cluster's primary, which must succeed. */
  private async cli(args: string[]): Promise<void> {
    const ran = await runCli(args, { DATABASE_URL: this.stack.primaryUrl() });
    if (ran.code !== 0) throw new Error(`${args.slice(0, 2).join(' ')}: ${ran.stderr}`);
  }

  /** The events feed's member.created events, read through the first server from the start: the members' logins, and whether the ids only grew. */
  async feedCreated(): Promise<{ logins: string[]; inOrder: boolean }> {
    const logins: string[] = [];
    let inOrder = true;
    let last = 0;
    for (let after = '0'; ;) {
      const page = await this.api<{ events: Array<{ id: string; member: { login: string } }>; next: string }>('events', {
        api_key: this.servers[0]!.demoKey(),
        after,
        limit: '1000',
        types: 'member.created',
      });
      for (const event of page.events) {
        inOrder &&= Number(event.id) > last;
        last = Number(event.id);
        logins.push(event.member.login);
      }
      // With a type asked for, a page may hold none and still move on: the end is where `next` stays.
      if (page.next === after) return { logins, inOrder };
      after = page.next;
    }
  }

  /** The logins of the member.created events the webhook received (each delivery, duplicates included). */
  delivered(): string[] {
    return this.receiver.received.map((r) => (JSON.parse(r.body) as { type: string; member: { login: string } }).member.login);
  }

  /** Sweep rounds done (the advisory lock taken) by both servers. */
  sweepsDone(): Promise<number> {
    return this.metricSum(/member_api_job_round_seconds_count\{job="sweep",outcome="ok"\} (\d+)/);
  }

  /** Requests both servers counted as answered 503 for a store unavailable, both outcomes. */
  storeUnavailableCounted(): Promise<number> {
    return this.metricSum(/member_api_store_unavailable_total\{outcome="(?:refused|unknown)"\} (\d+)/g);
  }

  /** A metric's values (the first group of each match), summed over both servers. */
  private async metricSum(pattern: RegExp): Promise<number> {
    let sum = 0;
    for (const port of this.metricsPorts) {
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      const global = new RegExp(pattern.source, 'g');
      for (const match of text.matchAll(global)) sum += Number(match[1]);
    }
    return sum;
  }
}

/** An outage as one line of a report. */
export function describeOutage(o: Outage): string {
  return (
    `${o.what}: writes out ${(o.firstOkAfter - o.lastOkBefore).toFixed(1)} s (last OK ${o.lastOkBefore.toFixed(1)} s, first OK +${o.firstOkAfter.toFixed(1)} s); ` +
    `a node took writes +${o.promoted.toFixed(1)} s; 503s ${o.refused}; both servers ready +${o.ready.toFixed(1)} s`
  );
}
