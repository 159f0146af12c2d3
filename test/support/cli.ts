import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/member-api.js', import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `member-api ARGS` as a user would, with the given environment added. */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, timeout: 30_000, cwd }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A port free on the loopback a moment ago (a process given it may still lose it to another). */
export async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export interface Served {
  readonly child: ChildProcess;
  readonly url: string;
  /** Standard output and standard error, as they came. */
  output(): string;
  /** Standard output alone. */
  stdout(): string;
  /** The demo account's key, from the file the server writes it to (it is never printed off a terminal). */
  demoKey(): string;
  readonly demoKeyFile: string;
}

/** Starts `member-api serve` on a free port and waits until it listens. */
export async function startServe(env: Record<string, string>): Promise<Served> {
  const demoKeyFile = join(mkdtempSync(join(tmpdir(), 'member-api-demo-')), 'demo-api-key');
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: process.env.SERVE_LOG_LEVEL ?? 'warn', DEMO_KEY_FILE: demoKeyFile, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 30_000;
  while (!/listening on (http:\/\/\S+)/.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
  const demoKey = () => /api_key=(\S+)/.exec(readFileSync(demoKeyFile, 'utf8'))![1]!;
  return { child, url, output: () => output, stdout: () => stdout, demoKey, demoKeyFile };
}

/** The exit code (null when a signal ended it), waiting for the exit if it has not happened yet. */
export async function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const [code] = (await once(child, 'exit')) as [number | null];
  return code;
}

/** Whether util-linux's script(1) is here, to run a command on a pseudo-terminal. */
export function hasScript(): boolean {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
