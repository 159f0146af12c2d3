/**
 * `npm run import-check`: the import, measured as a user runs it.
 *
 * 1. Writes a CSV of N members (default 100,000) whose passwords come in every format the
 *    import takes, one format per member in turn: plain, argon2i (another system's
 *    parameters), bcrypt $2a$ / $2b$ / $2y$, md5-crypt $1$, Apache $apr1$, SHA-crypt $5$ / $6$,
 *    htpasswd {SHA}. The crypt hashes come from OpenSSL (`openssl passwd`), an independent
 *    implementation; bcrypt from bcryptjs at cost 5 and argon2i at m=4096 so that writing the
 *    file takes a minute, not hours (the cost does not change what the import does).
 * 2. Creates an account and runs `member-api import FILE --account NAME` (timed; its summary
 *    is printed as is).
 * 3. Starts `member-api serve` and logs in members of every format through /login/ with their
 *    old passwords (and a wrong one), then again, after the login has upgraded the hash.
 *
 * Options: --rows N, --engine sqlite|postgres, --per-format N (logins checked per format).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { stringify } from 'csv-stringify/sync';
import { build, cli, databaseUrl, resetDatabase, ROOT, startServer } from './lib.js';
import type { Engine } from '../src/store/dialects/dialect.js';

const FORMATS = ['plain', 'argon2i', 'bcrypt-2a', 'bcrypt-2b', 'bcrypt-2y', 'md5-crypt', 'apr1', 'sha256-crypt', 'sha512-crypt', 'htpasswd-sha1'] as const;
type Format = (typeof FORMATS)[number];

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1]! : fallback;
}

const rows = Number(option('rows', '100000'));
const engine = option('engine', 'sqlite') as Engine;
const perFormat = Number(option('per-format', '20'));
const file = `${ROOT}.bench/import-${rows}.csv`;

function formatOf(index: number): Format {
  return FORMATS[index % FORMATS.length]!;
}

function passwordOf(index: number): string {
  return `pw-${index}-${createHash('sha256').update(`import-check-${index}`).digest('hex').slice(0, 10)}`;
}

/** `openssl passwd -ALG -stdin`: one hash per line in, one per line out. */
function openssl(algorithm: string, passwords: string[]): string[] {
  return execFileSync('openssl', ['passwd', `-${algorithm}`, '-stdin'], { input: `${passwords.join('\n')}\n`, encoding: 'utf8', maxBuffer: 1 << 30 })
    .trim()
    .split('\n');
}

async function hashesFor(format: Format, indexes: number[]): Promise<string[]> {
  const passwords = indexes.map(passwordOf);
  switch (format) {
    case 'plain':
      return passwords.map(() => '');
    case 'md5-crypt':
      return openssl('1', passwords);
    case 'apr1':
      return openssl('apr1', passwords);
    case 'sha256-crypt':
      return openssl('5', passwords);
    case 'sha512-crypt':
      return openssl('6', passwords);
    case 'htpasswd-sha1':
      return passwords.map((p) => `{SHA}${createHash('sha1').update(p).digest('base64')}`);
    case 'argon2i':
      return Promise.all(passwords.map((p) => argon2Hash(p, { algorithm: 1, memoryCost: 4096, timeCost: 3, parallelism: 1 })));
    default: {
      const prefix = `$${format.slice(-2)}$`;
      return passwords.map((p) => bcrypt.hashSync(p, 5).replace(/^\$2[ab]\$/, prefix));
    }
  }
}

async function writeSample(): Promise<void> {
  const started = performance.now();
  mkdirSync(`${ROOT}.bench`, { recursive: true });
  const out = createWriteStream(file);
  out.write('login,email,password,password_hash,status,reg_type,reg_date,city\n');
  const CHUNK = 5000;
  for (let start = 0; start < rows; start += CHUNK) {
    const indexes = Array.from({ length: Math.min(CHUNK, rows - start) }, (_, i) => start + i);
    const hashes = new Map<number, string>();
    for (const format of FORMATS) {
      const mine = indexes.filter((i) => formatOf(i) === format);
      (await hashesFor(format, mine)).forEach((hash, k) => hashes.set(mine[k]!, hash));
    }
    const lines = indexes.map((i) => [
      `user${i}`,
      `user${i}@example.com`,
      formatOf(i) === 'plain' ? passwordOf(i) : '',
      hashes.get(i)!,
      i % 50 === 0 ? 'Suspended' : 'Active',
      ['Free', 'Paid', 'Manual'][i % 3]!,
      `20${10 + (i % 15)}-0${1 + (i % 9)}-1${i % 10}`,
      ['Paris', 'Oslo', 'Lima', 'Kyoto'][i % 4]!,
    ]);
    if (!out.write(stringify(lines))) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve) => out.end(() => resolve()));
  console.log(`wrote ${rows} rows to ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s (formats: ${FORMATS.join(', ')})`);
}

async function post(url: string, params: Record<string, string>): Promise<{ result: string }> {
  return (await fetch(url, { method: 'POST', body: new URLSearchParams(params) })).json() as Promise<{ result: string }>;
}

async function main(): Promise<void> {
  build();
  if (!existsSync(file) || statSync(file).size === 0) await writeSample();
  else console.log(`reusing ${file}`);
  await resetDatabase(engine, 'import');
  const env = { DATABASE_URL: databaseUrl(engine, 'import') };
  cli(['account', 'create', 'imported', '--json'], env);

  console.log(`\n$ member-api import ${file.replace(ROOT, '')} --account imported   (${engine})`);
  const started = performance.now();
  const summary = cli(['import', file, '--account', 'imported'], env);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(summary);
  console.log(`wall time including start-up: ${seconds.toFixed(1)} s = ${Math.round(rows / seconds)} rows/s on ${engine}`);

  const server = await startServer(env);
  try {
    console.log(`\nlogins through /login/ with the old passwords, ${perFormat} members per format:`);
    console.log('format          wrong→FAIL  right→OK  again→OK (argon2id now)');
    let failures = 0;
    for (const format of FORMATS) {
      const counts = { wrong: 0, right: 0, again: 0 };
      // Spread over the file; members 0, 50, 100… are Suspended, so the next of the format is taken.
      const step = Math.max(1, Math.floor(rows / (FORMATS.length * perFormat)));
      const indexes = Array.from({ length: perFormat }, (_, k) => {
        const i = FORMATS.indexOf(format) + FORMATS.length * (k * step + 1);
        return i % 50 === 0 ? i + FORMATS.length : i;
      }).filter((i) => i < rows);
      for (const i of indexes) {
        const login = (password: string) => post(`${server.url}/api2/login/`, { user: 'imported', login: `user${i}`, password });
        if ((await login(`${passwordOf(i)}x`)).result === 'FAIL') counts.wrong++;
        if ((await login(passwordOf(i))).result === 'OK') counts.right++;
        if ((await login(passwordOf(i))).result === 'OK') counts.again++;
      }
      failures += 3 * indexes.length - counts.wrong - counts.right - counts.again;
      console.log(
        `${format.padEnd(16)}${`${counts.wrong}/${indexes.length}`.padStart(10)}${`${counts.right}/${indexes.length}`.padStart(10)}${`${counts.again}/${indexes.length}`.padStart(10)}`,
      );
    }
    const exportFile = `${ROOT}.bench/import-export.jsonl`;
    // An export never writes over a file: the last run's goes first.
    rmSync(exportFile, { force: true });
    cli(['export', '--account', 'imported', '--output', exportFile], env);
    const exported = readFileSync(exportFile, 'utf8').trim().split('\n');
    const upgraded = exported.filter((line) => line.includes('"$argon2id$v=19$m=19456')).length;
    console.log(
      `\nafter the logins: ${upgraded} of ${exported.length} members hold argon2id at our parameters (imported plain passwords, and the members who logged in)`,
    );
    if (failures > 0) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

await main();
