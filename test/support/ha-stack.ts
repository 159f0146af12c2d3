import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/**
 * A Patroni cluster as docs/beyond-one-machine.md describes it, on loopback ports, from
 * Debian's packages, as this process's children: one etcd, three Patroni nodes started from
 * deploy/patroni/patroni.yml as it is (what differs per node comes from the environment, as
 * in production), HAProxy from deploy/haproxy.cfg. As root, Patroni and PostgreSQL run as
 * the `postgres` user (initdb refuses root).
 */

const DEPLOY = fileURLToPath(new URL('../../deploy/', import.meta.url));
const PASSWORDS = { superuser: 'ha-superuser', replication: 'ha-replication', rewind: 'ha-rewind', app: 'ha-member-api', restapi: 'ha-restapi' };

export interface PatroniNode {
  readonly name: string;
  readonly pgPort: number;
  readonly apiPort: number;
  readonly dataDir: string;
  process: ChildProcess | undefined;
}

export interface ClusterMember {
  name: string;
  role: 'leader' | 'sync_standby' | 'replica' | 'standby_leader';
  state: string;
  timeline?: number;
  lag?: number | string;
}

/** Whether this machine has what the stack needs. */
export function haStackMissing(): string | undefined {
  for (const command of ['patroni', 'etcd', 'haproxy']) {
    try {
      execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    } catch {
      return `${command} is not installed (apt-get install patroni etcd-server haproxy)`;
    }
  }
  return undefined;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(100);
  }
}

/** The user ids Patroni runs as: postgres when we are root, ourselves otherwise. */
function postgresIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

export class HaStack {
  readonly nodes: PatroniNode[] = [];
  private etcd: ChildProcess | undefined;
  private haproxy: ChildProcess | undefined;
  private readonly logs = new Map<string, string>();
  private readonly ids = postgresIds();
  /** HAProxy's port to the primary, and to the standbys. */
  primaryPort = 0;
  replicaPort = 0;
  private etcdPort = 0;
  /** Patroni's synchronous_mode, as deploy/patroni/patroni.yml sets it, or as changed since. */
  private synchronous = true;

  private constructor(readonly folder: string) {}

  static async start(): Promise<HaStack> {
    const folder = mkdtempSync(join(tmpdir(), 'member-api-ha-'));
    const stack = new HaStack(folder);
    // Patroni writes its password file here; PostgreSQL's data directories are made inside.
    if (stack.ids) chownSync(folder, stack.ids.uid, stack.ids.gid);
    try {
      await stack.startEtcd();
      for (const name of ['pg1', 'pg2', 'pg3']) {
        const dataDir = join(folder, name);
        stack.nodes.push({ name, pgPort: await freePort(), apiPort: await freePort(), dataDir, process: undefined });
      }
      // The first bootstraps the cluster; the others then copy it (pg_basebackup).
      stack.startPatroni(stack.nodes[0]!);
      await until('the first node to lead', 60_000, async () => ((await stack.role(stack.nodes[0]!)) === 'primary' ? true : undefined));
      stack.startPatroni(stack.nodes[1]!);
      stack.startPatroni(stack.nodes[2]!);
      await stack.waitForCluster(3, 90_000);
      await stack.startHaproxy();
      await stack.createDatabase();
      return stack;
    } catch (error) {
      await stack.stop();
      throw new Error(`${(error as Error).message}\n${stack.output()}`, { cause: error });
    }
  }

  /** What every process printed, for a failure's message. */
  output(): string {
    return [...this.logs].map(([name, text]) => `--- ${name}\n${text.slice(-4000)}`).join('\n');
  }

  private capture(name: string, child: ChildProcess): void {
    this.logs.set(name, this.logs.get(name) ?? '');
    const add = (chunk: Buffer) => this.logs.set(name, (this.logs.get(name)! + chunk.toString()).slice(-20_000));
    child.stdout?.on('data', add);
    child.stderr?.on('data', add);
  }

  private async startEtcd(): Promise<void> {
    this.etcdPort = await freePort();
    const peerPort = await freePort();
    const peer = `http://127.0.0.1:${peerPort}`;
    const client = `http://127.0.0.1:${this.etcdPort}`;
    this.etcd = spawn(
      'etcd',
      [
        ...['--name', 'etcd1', '--data-dir', join(this.folder, 'etcd')],
        ...['--listen-client-urls', client, '--advertise-client-urls', client],
        ...['--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `etcd1=${peer}`],
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.capture('etcd', this.etcd);
    await until('etcd', 20_000, async () => ((await fetch(`${client}/health`)).ok ? true : undefined));
  }

  /** Starts (or starts again) a node's Patroni from the deployed file, its own settings in the environment. */
  startPatroni(node: PatroniNode): void {
    mkdirSync(node.dataDir, { recursive: true, mode: 0o700 });
    if (this.ids) chownSync(node.dataDir, this.ids.uid, this.ids.gid);
    const env = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: this.folder,
      PATRONI_NAME: node.name,
      PATRONI_RESTAPI_LISTEN: `127.0.0.1:${node.apiPort}`,
      PATRONI_RESTAPI_CONNECT_ADDRESS: `127.0.0.1:${node.apiPort}`,
      PATRONI_POSTGRESQL_LISTEN: `127.0.0.1:${node.pgPort}`,
      PATRONI_POSTGRESQL_CONNECT_ADDRESS: `127.0.0.1:${node.pgPort}`,
      PATRONI_POSTGRESQL_DATA_DIR: node.dataDir,
      PATRONI_POSTGRESQL_PGPASS: join(this.folder, `${node.name}.pgpass`),
      PATRONI_ETCD3_HOSTS: `127.0.0.1:${this.etcdPort}`,
      PATRONI_SUPERUSER_PASSWORD: PASSWORDS.superuser,
      PATRONI_REPLICATION_PASSWORD: PASSWORDS.replication,
      PATRONI_REWIND_PASSWORD: PASSWORDS.rewind,
      PATRONI_RESTAPI_PASSWORD: PASSWORDS.restapi,
      PATRONI_LOG_LEVEL: 'WARNING',
    };
    node.process = spawn('patroni', [join(DEPLOY, 'patroni/patroni.yml')], { env, stdio: ['ignore', 'pipe', 'pipe'], ...this.ids });
    this.capture(node.name, node.process);
  }

  private async startHaproxy(): Promise<void> {
    this.primaryPort = await freePort();
    this.replicaPort = await freePort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      STATS_BIND: `127.0.0.1:${await freePort()}`,
      PRIMARY_BIND: `127.0.0.1:${this.primaryPort}`,
      REPLICA_BIND: `127.0.0.1:${this.replicaPort}`,
    };
    this.nodes.forEach((node, i) => {
      env[`PG${i + 1}`] = `127.0.0.1:${node.pgPort}`;
      env[`PG${i + 1}_API_HOST`] = '127.0.0.1';
      env[`PG${i + 1}_API_PORT`] = String(node.apiPort);
    });
    this.haproxy = spawn('haproxy', ['-db', '-f', join(DEPLOY, 'haproxy.cfg')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.capture('haproxy', this.haproxy);
    // HAProxy counts every node up until its first checks: wait until three connections in a
    // row (its round robin) reach a server that takes writes.
    await until('HAProxy to route to the primary alone', 20_000, async () => {
      for (let i = 0; i < 3; i++) {
        const [row] = await this.query<{ writable: boolean }>(this.primaryUrl('postgres', true), 'select not pg_is_in_recovery() as writable');
        if (!row?.writable) return undefined;
      }
      return true;
    });
  }

  /** As an operator would: the application's role and database, made through HAProxy. */
  private async createDatabase(): Promise<void> {
    const admin = this.primaryUrl('postgres', true);
    await this.query(admin, `create role member_api login password '${PASSWORDS.app}'`);
    await this.query(admin, 'create database member_api owner member_api');
  }

  /** A URL through HAProxy's primary port: the application's, or the superuser's. */
  primaryUrl(database = 'member_api', superuser = false): string {
    const who = superuser ? `postgres:${PASSWORDS.superuser}` : `member_api:${PASSWORDS.app}`;
    return `postgres://${who}@127.0.0.1:${this.primaryPort}/${database}`;
  }

  /** A URL through HAProxy's standbys' port (round robin over the nodes that answer /replica). */
  replicaUrl(database = 'member_api', superuser = false): string {
    const who = superuser ? `postgres:${PASSWORDS.superuser}` : `member_api:${PASSWORDS.app}`;
    return `postgres://${who}@127.0.0.1:${this.replicaPort}/${database}`;
  }

  /** A URL straight to one node, bypassing HAProxy. */
  nodeUrl(node: PatroniNode, database = 'member_api'): string {
    return `postgres://postgres:${PASSWORDS.superuser}@127.0.0.1:${node.pgPort}/${database}`;
  }

  async query<R extends pg.QueryResultRow = pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      return (await client.query<R>(text, values)).rows;
    } finally {
      await client.end().catch(() => {});
    }
  }

  /** What a node's REST API says it is, as HAProxy asks: 'primary' (leads, takes writes), 'replica' (a running standby), or undefined. */
  async role(node: PatroniNode): Promise<'primary' | 'replica' | undefined> {
    for (const role of ['primary', 'replica'] as const) {
      const answer = await fetch(`http://127.0.0.1:${node.apiPort}/${role}`, { method: 'OPTIONS', signal: AbortSignal.timeout(1000) }).catch(() => undefined);
      await answer?.arrayBuffer();
      if (answer?.status === 200) return role;
    }
    return undefined;
  }

  /** Patroni's synchronous_mode, changed in the cluster's configuration as `patronictl edit-config` does. */
  async setSynchronousMode(on: boolean): Promise<void> {
    await this.patchConfig({ synchronous_mode: on });
    this.synchronous = on;
    await until(`synchronous mode ${on ? 'on' : 'off'}`, 30_000, async () => {
      const members = await this.cluster();
      return members.some((m) => m.role === 'sync_standby') === on ? true : undefined;
    });
  }

  /**
   * The standbys apply the WAL this late (recovery_min_apply_delay, through Patroni): they
   * lag behind by that much, as a loaded or distant standby does. 0 puts them back.
   */
  async setApplyDelay(ms: number): Promise<void> {
    await this.patchConfig({ postgresql: { parameters: { recovery_min_apply_delay: `${ms}ms` } } });
    const leader = await this.leader();
    for (const node of this.nodes.filter((n) => n !== leader)) {
      await until(`${node.name} to apply the WAL ${ms} ms late`, 30_000, async () => {
        const [row] = await this.query<{ delay: string }>(
          this.nodeUrl(node, 'postgres'),
          "select setting as delay from pg_settings where name = 'recovery_min_apply_delay'",
        );
        return Number(row?.delay) === ms ? true : undefined;
      });
    }
  }

  private async patchConfig(patch: object): Promise<void> {
    const leader = (await this.leader())!;
    const answer = await fetch(`http://127.0.0.1:${leader.apiPort}/config`, {
      method: 'PATCH',
      headers: { authorization: `Basic ${Buffer.from(`patroni:${PASSWORDS.restapi}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify(patch),
    });
    if (!answer.ok) throw new Error(`Patroni refused the configuration: ${answer.status} ${await answer.text()}`);
  }

  /** The cluster as Patroni sees it, asked of any node that answers. */
  async cluster(): Promise<ClusterMember[]> {
    for (const node of this.nodes) {
      const answer = await fetch(`http://127.0.0.1:${node.apiPort}/cluster`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
      if (answer?.ok) return ((await answer.json()) as { members: ClusterMember[] }).members;
    }
    return [];
  }

  async leader(): Promise<PatroniNode | undefined> {
    const leader = (await this.cluster()).find((member) => member.role === 'leader' && member.state === 'running');
    return this.nodes.find((node) => node.name === leader?.name);
  }

  /** Until `count` nodes run, one leading, the others streaming, one of them synchronous in synchronous mode. */
  async waitForCluster(count: number, timeoutMs: number): Promise<ClusterMember[]> {
    return until(`${count} nodes running${this.synchronous ? ' with a synchronous standby' : ''}`, timeoutMs, async () => {
      const members = await this.cluster();
      const leaders = members.filter((m) => m.role === 'leader' && m.state === 'running');
      const streaming = members.filter((m) => m.role !== 'leader' && (m.state === 'streaming' || m.state === 'running'));
      const sync = members.some((m) => m.role === 'sync_standby');
      return leaders.length === 1 && streaming.length === count - 1 && sync === this.synchronous ? members : undefined;
    });
  }

  /** Until a node other than `old` leads and takes writes. */
  async waitForNewLeader(old: PatroniNode, timeoutMs: number): Promise<PatroniNode> {
    return until('a new leader', timeoutMs, async () => {
      const leader = await this.leader();
      return leader && leader !== old && (await this.role(leader)) === 'primary' ? leader : undefined;
    });
  }

  /** The postmaster's process id, from its data directory. */
  postmasterPid(node: PatroniNode): number {
    return Number(readFileSync(join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  }

  /**
   * Binds the node's PostgreSQL (the postmaster, its processes, and the backends it forks
   * later) and its Patroni to these CPUs (`taskset -c` syntax): a machine of its own, as far
   * as one machine can give it.
   */
  pin(node: PatroniNode, cpus: string): void {
    const postmaster = this.postmasterPid(node);
    // pgrep answers 1 when there is no child; a backend may end before taskset reaches it.
    const children = spawnSync('pgrep', ['-P', String(postmaster)])
      .stdout.toString()
      .trim()
      .split('\n')
      .filter(Boolean);
    for (const pid of [postmaster, ...children.map(Number), ...(node.process?.pid ? [node.process.pid] : [])]) {
      spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    }
  }

  /** `kill -9` of the node's postmaster (Patroni sees it gone and starts it again). */
  killPostmaster(node: PatroniNode): void {
    process.kill(this.postmasterPid(node), 'SIGKILL');
  }

  /** `kill -9` of the node's Patroni and its postmaster together: the machine gone. */
  async killNode(node: PatroniNode): Promise<void> {
    const pid = this.postmasterPid(node);
    node.process?.kill('SIGKILL');
    process.kill(pid, 'SIGKILL');
    // The postmaster's children end once they see it gone; its port is free then.
    await until(`${node.name}'s postgres to end`, 20_000, async () => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true;
      }
    });
    node.process = undefined;
  }

  async stop(): Promise<void> {
    for (const node of this.nodes) {
      let pid: number | undefined;
      try {
        pid = this.postmasterPid(node);
      } catch {
        pid = undefined;
      }
      node.process?.kill('SIGKILL');
      if (pid) {
        try {
          process.kill(pid, 'SIGQUIT');
        } catch {
          // already gone
        }
      }
    }
    this.haproxy?.kill('SIGKILL');
    this.etcd?.kill('SIGKILL');
    await sleep(300);
    rmSync(this.folder, { recursive: true, force: true });
  }
}
