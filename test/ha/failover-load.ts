/**
 * A client load for the failover test and bench: workers that each, in a loop, create a new
 * member, sign it in and change its e-mail, through one of the servers,
 * recording every answer. Each member is written once and not again after a doubtful answer,
 * so what was acknowledged can be checked on the database afterwards.
 */

export interface Answer {
  /** When it was sent and answered (ms since the epoch). */
  sent: number;
  at: number;
  server: number;
  call: 'create' | 'login' | 'update' | 'session';
  login: string;
  status: number;
  /** The answer's `result` and `message`, or the transport error. */
  result: string;
  message: string;
  /** The session a /login/ answered. */
  session?: string;
}

export interface Acknowledged {
  /** Members whose /create/ answered OK. */
  created: Set<string>;
  /** The e-mail each member's /update/ answered OK with. */
  updated: Map<string, string>;
  /** A session each member's /login/ answered OK with. */
  sessions: Map<string, string>;
}

export class FailoverLoad {
  readonly answers: Answer[] = [];
  readonly acknowledged: Acknowledged = { created: new Set(), updated: new Map(), sessions: new Map() };
  private running = false;
  private readonly workers: Array<Promise<void>> = [];

  constructor(
    private readonly servers: string[],
    private readonly apiKey: string,
    private readonly perServer = 2,
  ) {}

  start(): void {
    this.running = true;
    this.servers.forEach((url, server) => {
      for (let w = 0; w < this.perServer; w++) this.workers.push(this.work(url, server, `s${server}w${w}`));
    });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** The last OK before `t` and the first OK after it, of writes, over all servers. */
  writeOutage(t: number): { lastOkBefore: number; firstOkAfter: number } {
    const writes = this.answers.filter((a) => (a.call === 'create' || a.call === 'update') && a.result === 'OK');
    const lastOkBefore = Math.max(...writes.filter((a) => a.at <= t).map((a) => a.at));
    const firstOkAfter = Math.min(...writes.filter((a) => a.sent > t).map((a) => a.at));
    return { lastOkBefore, firstOkAfter };
  }

  private async call(url: string, server: number, call: Answer['call'], login: string, params: Record<string, string>): Promise<Answer> {
    const sent = Date.now();
    let answer: Answer;
    try {
      const response = await fetch(`${url}/api2/${call}/`, {
        method: 'POST',
        body: new URLSearchParams({ user: 'demo', ...params }),
        signal: AbortSignal.timeout(20_000),
      });
      const body = (await response.json()) as { result?: string; message?: string; session?: string };
      answer = {
        sent,
        at: Date.now(),
        server,
        call,
        login,
        status: response.status,
        result: body.result ?? '',
        message: body.message ?? '',
        session: body.session,
      };
    } catch (error) {
      answer = { sent, at: Date.now(), server, call, login, status: 0, result: 'TRANSPORT', message: String((error as Error).message ?? error) };
    }
    this.answers.push(answer);
    return answer;
  }

  private async work(url: string, server: number, name: string): Promise<void> {
    const key = { api_key: this.apiKey };
    for (let n = 0; this.running; n++) {
      const login = `${name}m${n}`;
      const created = await this.call(url, server, 'create', login, { ...key, _login: login, _email: `${login}@example.com`, _password: 'correct-horse' });
      if (created.result !== 'OK') {
        await pause(created);
        continue;
      }
      this.acknowledged.created.add(login);
      const signedIn = await this.call(url, server, 'login', login, { login, password: 'correct-horse' });
      if (signedIn.result !== 'OK') {
        await pause(signedIn);
        continue;
      }
      this.acknowledged.sessions.set(login, signedIn.session!);
      const email = `${login}.changed@example.com`;
      const updated = await this.call(url, server, 'update', login, { ...key, find_member_login: login, email });
      if (updated.result === 'OK') this.acknowledged.updated.set(login, email);
      else await pause(updated);
    }
  }
}

/** After a refusal, as a client told Retry-After: 1 would, but briefer: the test measures the outage to a tenth of a second. */
function pause(answer: Answer): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, answer.status === 503 ? 100 : 200));
}
