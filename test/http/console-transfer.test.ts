/**
 * The console's export and import over HTTP, on both engines (the browser test walks the same
 * pages in Chromium): a filter's export streamed in the columns its page shows, an upload
 * mapped, checked by a dry run and imported through the importer, and their edges (a bad
 * format, a file too large, a viewer, another account's job).
 */
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import bcrypt from 'bcryptjs';
import { expect, it } from 'vitest';
import { describeEachEngineApp, type Harness, type Reply } from '../support/app.js';
import { form, signedIn } from '../support/console.js';
import { apiAccount } from '../support/member-api.js';
import { peek } from '../support/peek.js';
import type { MemberFilters } from '../../src/members/member-store.js';

const BOUNDARY = '----console-transfer-test';

/** A multipart form as a browser sends the upload form: the format, then the file. */
function multipart(fileName: string, content: string | Buffer, format = ''): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="format"\r\n\r\n${format}\r\n`),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    Buffer.isBuffer(content) ? content : Buffer.from(content),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

const upload = (h: Harness, account: string, cookie: string, fileName: string, content: string | Buffer, format = ''): Promise<Reply> =>
  h.request({
    url: `/admin/accounts/${account}/members/import`,
    payload: multipart(fileName, content, format),
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, cookie },
  });

const get = (h: Harness, url: string, cookie: string) => h.request({ method: 'GET', url, headers: { cookie } });

/** The job's page once its run has ended (it refreshes itself while the run goes on). */
async function settled(h: Harness, url: string, cookie: string): Promise<Reply> {
  for (let i = 0; i < 200; i++) {
    const page = await get(h, url, cookie);
    if (page.headers.refresh === undefined) return page;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the run did not end');
}

describeEachEngineApp('the console’s export and import over HTTP', (h) => {
  it('exports a filter streamed, in the columns its page shows, as CSV or JSON Lines, to editors only', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `export-${api.user}@example.com`, api.user);
    for (const [login, city] of [
      ['gold1', 'Oslo'],
      ['gold2', '=cmd'],
      ['gold3', 'Rome'],
      ['silver1', 'Oslo'],
    ] as const)
      await api.create(login, { city, plan: 'secret-plan' });
    const members = `/admin/accounts/${api.user}/members`;
    // The members page links the export with its filter and columns, not its position.
    const listing = await get(h(), `${members}?q=gold&columns=city&at=1`, cookie);
    expect(listing.body).toContain(`href="${members}/export?q=gold&amp;columns=city"`);
    expect(listing.body).toContain(`href="${members}/import"`);
    const page = await get(h(), `${members}/export?q=gold&columns=city`, cookie);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<strong>3</strong> members');
    expect(page.body).toContain('id, login, email, status, reg_time, last_login_time, city');

    const csv = await get(h(), `${members}/export/file?q=gold&columns=city&format=csv`, cookie);
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="${api.user}-members-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    expect(csv.headers['cache-control']).toBe('no-store');
    const lines = csv.body.trim().split('\n');
    expect(lines[0]).toBe('id,login,email,status,reg_time,last_login_time,city');
    // Oldest first; a formula is written as text; no hash, no profile field not shown.
    expect(lines.slice(1).map((line) => line.split(',').slice(1, 4).join(','))).toEqual([
      'gold1,gold1@example.com,A',
      'gold2,gold2@example.com,A',
      'gold3,gold3@example.com,A',
    ]);
    expect(lines[2]).toMatch(/,'=cmd$/);
    expect(csv.body).not.toContain('argon2');
    expect(csv.body).not.toContain('secret-plan');

    const jsonl = await get(h(), `${members}/export/file?q=silver&columns=city,plan&format=jsonl`, cookie);
    expect(jsonl.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const rows = jsonl.body
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!)).toEqual(['id', 'login', 'email', 'status', 'reg_time', 'city', 'plan']);
    expect(rows[0]).toMatchObject({ login: 'silver1', city: 'Oslo', plan: 'secret-plan' });

    // Bad input names the parameter and the reason, on a console page.
    const format = await get(h(), `${members}/export/file?q=gold&format=xlsx`, cookie);
    expect([format.status, format.headers['content-type']]).toEqual([400, 'text/html; charset=utf-8']);
    expect(format.body).toContain('Invalid parameter: format: csv or jsonl.');
    const day = await get(h(), `${members}/export/file?registered_from=yesterday`, cookie);
    expect([day.status, day.body.includes('registered_from: a date, YYYY-MM-DD')]).toEqual([400, true]);

    // A viewer reads the members but exports none of their data; another account's operator sees no account.
    const viewer = await signedIn(h(), `export-viewer-${api.user}@example.com`, api.user, 'viewer');
    expect((await get(h(), `${members}?q=gold`, viewer)).body).not.toContain('/export');
    expect((await get(h(), `${members}/export?q=gold`, viewer)).status).toBe(403);
    expect((await get(h(), `${members}/export/file?q=gold`, viewer)).status).toBe(403);
    const other = await apiAccount(h());
    const stranger = await signedIn(h(), `export-stranger-${other.user}@example.com`, other.user);
    expect((await get(h(), `${members}/export/file?format=csv`, stranger)).status).toBe(404);
  });

  it('exports a selection: the account’s members its filter finds, with their status now and the fields named, never another account’s', async () => {
    const api = await apiAccount(h());
    const other = await apiAccount(h());
    const now = h().clock.now();
    await api.insert({ login: 'lapsed', email: 'lapsed@example.com', status: 'A', timeExpiry: { at: now - 60_000, action: 'S' } });
    await api.insert({ login: 'gone', email: 'gone@example.com', status: 'D', deletedAt: now - 60_000 });
    await api.create('kept', { team: 'blue', secret_note: 'x' });
    await other.create('stranger', { team: 'blue' });
    const exported = async (filters: MemberFilters, profileFields: string[] = []) => {
      const rows: Array<{ login: string; status: string; profile: Record<string, string> }> = [];
      let fieldNames: readonly string[] = [];
      await h().store.transfer.exportMembers(
        api.account.id,
        async (members) => {
          fieldNames = members.fieldNames;
          for await (const chunk of members.members)
            for (const member of chunk) rows.push({ login: member.login, status: member.status, profile: Object.fromEntries(member.profile) });
        },
        { filters, now, profileFields },
      );
      return { fieldNames, rows };
    };
    // Without a status, the Deleted are left out; an expiration that fell due counts.
    expect((await exported({})).rows.map((row) => [row.login, row.status])).toEqual([
      ['lapsed', 'S'],
      ['kept', 'A'],
    ]);
    expect((await exported({ includeDeleted: true })).rows.map((row) => row.login)).toEqual(['lapsed', 'gone', 'kept']);
    // The profile: only the fields named.
    expect(await exported({ anyContains: 'blue' }, ['team'])).toEqual({
      fieldNames: ['team'],
      rows: [{ login: 'kept', status: 'A', profile: { team: 'blue' } }],
    });
  });

  it('streams an export of thousands of members page by page, each once, in id order', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `export-many-${api.user}@example.com`, api.user);
    // Through the importer (a hash given: nothing to hash), more than two of the export's pages.
    const hash = bcrypt.hashSync('a-good-password', 4);
    const rows = (async function* () {
      for (let i = 1; i <= 2500; i++)
        yield {
          line: i,
          values: new Map(Object.entries({ login: `many${i}`, email: `many${i}@example.com`, password_hash: hash, tier: i % 2 ? 'odd' : 'even' })),
        };
    })();
    const summary = await h().services.importer.run(api.account, rows, { dryRun: false, keepIds: false });
    expect(summary.imported).toBe(2500);
    const csv = await get(h(), `/admin/accounts/${api.user}/members/export/file?field=tier&field_value=odd&columns=tier&format=csv`, cookie);
    const lines = csv.body.trim().split('\n').slice(1);
    expect(lines).toHaveLength(1250);
    // Each once, in id order (the importer's batches may take their ids in either order on PostgreSQL).
    const logins = lines.map((line) => line.split(',')[1]!);
    expect(new Set(logins)).toEqual(new Set(Array.from({ length: 1250 }, (_, i) => `many${2 * i + 1}`)));
    const ids = lines.map((line) => Number(line.split(',')[0]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(lines.every((line) => line.endsWith(',odd'))).toBe(true);
  }, 60_000);

  it('imports an upload: columns guessed, a dry run with its rejects, then the run, the rejects downloadable', async () => {
    const api = await apiAccount(h());
    await api.create('existing', { city: 'Bergen' });
    const cookie = await signedIn(h(), `import-${api.user}@example.com`, api.user);
    const file = [
      'Username,E-mail,password,Town,notes',
      'existing,existing@example.com,,Oslo,x',
      'fresh1,fresh1@example.com,a-good-password-1,Rome,y',
      'fresh2,not-an-address,a-good-password-2,Rome,z',
      'nopass,nopass@example.com,,Paris,w',
    ].join('\n');
    const uploaded = await upload(h(), api.user, cookie, 'people.csv', file);
    expect(uploaded.status).toBe(303);
    const job = String(uploaded.headers.location).replace(/\?done=uploaded$/, '');
    expect(job).toMatch(new RegExp(`^/admin/accounts/${api.user}/members/import/[A-Za-z0-9_-]{16}$`));
    const mapping = await get(h(), `${job}?done=uploaded`, cookie);
    expect(mapping.status).toBe(200);
    // Guessed from the header: Username is the login, E-mail the e-mail, Town a profile field.
    expect(mapping.body).toMatch(/name="map:0"><option value="">\(leave out\)<\/option>(<option[^>]*>[^<]*<\/option>)*<option value="login" selected>/);
    expect(mapping.body).toMatch(/name="map:1">.*<option value="email" selected>/);
    expect(mapping.body).toMatch(/name="map:2">.*<option value="password" selected>/);
    expect(mapping.body).toMatch(/name="map:3">.*<option value="profile:Town" selected>/);

    // A mapping without a login, or a field twice, is refused naming the parameter.
    const noLogin = await form(h(), `${job}/check`, { 'map:0': '', 'map:1': 'email' }, cookie);
    expect([noLogin.status, noLogin.body.includes('Invalid parameter: map: no column is the login')]).toEqual([400, true]);
    const twice = await form(h(), `${job}/check`, { 'map:0': 'login', 'map:1': 'email', 'map:4': 'email' }, cookie);
    expect(twice.body).toContain('Invalid parameter: map:4: email is chosen already for the column “E-mail”');
    // Members set their password by e-mail only where the account sends mail.
    const chosen = { 'map:0': 'login', 'map:1': 'email', 'map:2': 'password', 'map:3': 'profile:city', 'map:4': '' };
    const noMail = await form(h(), `${job}/check`, { ...chosen, passwords: 'mail' }, cookie);
    expect([noMail.status, noMail.body.includes('Invalid parameter: passwords: the account has no mail server')]).toEqual([400, true]);
    // The import runs only the mapping a dry run checked.
    expect((await form(h(), `${job}/run`, {}, cookie)).status).toBe(409);

    const check = await form(h(), `${job}/check`, { ...chosen, passwords: 'reject' }, cookie);
    expect([check.status, check.headers.location]).toEqual([303, job]);
    const checked = await settled(h(), job, cookie);
    expect(checked.body).toContain('Dry run: nothing was written');
    expect(checked.body).toMatch(/New members \(would be made\)<\/th><td>1</);
    expect(checked.body).toMatch(/Members updated \(would be\)<\/th><td>1</);
    expect(checked.body).toMatch(/Rows rejected<\/th><td>2</);
    expect(checked.body).toContain('missing password or password_hash (needed for a new member)');
    expect(checked.body).toContain('invalid email');
    expect(await api.member('fresh1')).toBeUndefined();
    const dryRejects = await get(h(), `${job}/rejects`, cookie);
    expect(dryRejects.status).toBe(200);
    expect(dryRejects.headers['content-disposition']).toBe('attachment; filename="people.rejected.csv"');
    expect(dryRejects.body.split('\n')[0]).toBe('Username,E-mail,password,Town,notes,_line,_reason,_text');
    expect(dryRejects.body).toContain('fresh2,not-an-address,a-good-password-2,Rome,z,4,invalid email');

    const run = await form(h(), `${job}/run`, {}, cookie);
    expect([run.status, run.headers.location]).toEqual([303, job]);
    const done = await settled(h(), job, cookie);
    expect(done.body).toContain('<h2>Imported</h2>');
    expect(done.body).toMatch(/New members<\/th><td>1</);
    expect(await api.profile('existing')).toEqual(new Map([['city', 'Oslo']]));
    expect((await api.login('fresh1', 'a-good-password-1')).result).toBe('OK');
    expect(await api.member('nopass')).toBeUndefined();
    expect((await get(h(), `${job}/rejects`, cookie)).body).toContain('nopass@example.com');
    // The events name the import, as `member-api import`'s do.
    const created = (await api.events({ types: 'member.created' })).events as Array<{ actor: { kind: string }; member: { login: string } }>;
    expect(created.find((event) => event.member.login === 'fresh1')?.actor.kind).toBe('import');
  }, 60_000);

  it('makes new members without a password when chosen, and sends each the reset mail', async () => {
    const api = await apiAccount(h(), { smtpUrl: 'smtp://mail.example.com:587', mailFrom: 'club@example.com' });
    const cookie = await signedIn(h(), `import-mail-${api.user}@example.com`, api.user);
    const file = ['{"login":"mailed1","email":"mailed1@example.com"}', '{"login":"mailed2","email":"mailed2@example.com","password":"a-good-password-3"}'].join(
      '\n',
    );
    const uploaded = await upload(h(), api.user, cookie, 'members.jsonl', file);
    const job = String(uploaded.headers.location).replace(/\?.*$/, '');
    await form(h(), `${job}/check`, { 'map:0': 'login', 'map:1': 'email', 'map:2': 'password', passwords: 'mail' }, cookie);
    const checked = await settled(h(), job, cookie);
    expect(checked.body).toMatch(/would be mailed a reset link\)<\/th><td>1</);
    await form(h(), `${job}/run`, {}, cookie);
    const done = await settled(h(), job, cookie);
    expect(done.body).toMatch(/Mailed a reset link \(no password\)<\/th><td>1</);
    const mailed = (await api.member('mailed1'))!;
    const links = await peek(h().database, (db) => db.selectFrom('reset_links').select('member_id').where('account_id', '=', api.account.id).execute());
    expect(links.map((link) => link.member_id)).toEqual([mailed.id]);
    // Nobody knows the password it was made with.
    expect((await api.login('mailed1', 'a-guessed-password')).result).toBe('FAIL');
  }, 60_000);

  it('reads only the columns mapped: a JSON Lines key first met after the lines the columns came from is not read', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `import-late-${api.user}@example.com`, api.user);
    const hash = bcrypt.hashSync('a-good-password', 4);
    const lines = Array.from({ length: 120 }, (_, i) => JSON.stringify({ login: `early${i}`, email: `early${i}@example.com`, password_hash: hash }));
    // Past the first 100 lines: keys the mapping page never showed, one not a string, one not a status.
    lines.push(JSON.stringify({ login: 'late', email: 'late@example.com', password_hash: hash, city: 'Oslo', status: 'bogus', extra: { a: 1 } }));
    const uploaded = await upload(h(), api.user, cookie, 'late.jsonl', lines.join('\n'));
    const job = String(uploaded.headers.location).replace(/\?.*$/, '');
    const mapping = await get(h(), job, cookie);
    expect(mapping.body).toContain('3 columns');
    expect(mapping.body).not.toContain('city');
    await form(h(), `${job}/check`, { 'map:0': 'login', 'map:1': 'email', 'map:2': 'password_hash', passwords: 'reject' }, cookie);
    const checked = await settled(h(), job, cookie);
    expect(checked.body).toMatch(/Rows rejected<\/th><td>0</);
    await form(h(), `${job}/run`, {}, cookie);
    expect((await settled(h(), job, cookie)).body).toMatch(/New members<\/th><td>121</);
    expect((await api.member('late'))?.status).toBe('A');
    expect(await api.profile('late')).toEqual(new Map());
  }, 60_000);

  it('holds five imports an account at most, uploads in progress counted: a sixth is refused (429) while none can go', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `import-many-${api.user}@example.com`, api.user);
    // Five uploads that have not ended (their bodies still coming).
    const bodies = Array.from({ length: 5 }, () => new PassThrough());
    const uploads = bodies.map((body, i) => h().services.imports.receive(api.account, `slow${i}.csv`, 'csv', body, () => false));
    const refused = await upload(h(), api.user, cookie, 'sixth.csv', 'login,email\nann,ann@example.com\n');
    expect([refused.status, refused.headers['content-type']]).toEqual([429, 'text/html; charset=utf-8']);
    expect(refused.body).toContain('Too many imports: this account has 5 imports being uploaded or run, the most the server holds at once');
    // Another account is not held back.
    const other = await apiAccount(h());
    const otherCookie = await signedIn(h(), `import-many-${other.user}@example.com`, other.user);
    expect((await upload(h(), other.user, otherCookie, 'a.csv', 'login,email\nann,ann@example.com\n')).status).toBe(303);
    // Once they have ended, a new upload takes the place of the oldest.
    for (const [i, body] of bodies.entries()) body.end(`login,email\nm${i},m${i}@example.com\n`);
    const jobs = await Promise.all(uploads);
    const taken = await upload(h(), api.user, cookie, 'sixth.csv', 'login,email\nann,ann@example.com\n');
    expect(taken.status).toBe(303);
    // One of the five went, the oldest (they may have ended in any order).
    const gone = jobs.filter((job) => h().services.imports.find(api.account, job.id) === undefined);
    expect(gone).toHaveLength(1);
    expect(jobs.every((job) => job.changedAt >= gone[0]!.changedAt)).toBe(true);
  });

  it('refuses a dry run or an import asked for while a run of the job is in progress (409)', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `import-busy-${api.user}@example.com`, api.user);
    const hash = bcrypt.hashSync('a-good-password', 4);
    // Rows enough for the dry run to last far longer than a request.
    const file = `login,email,password_hash\n${Array.from({ length: 20_000 }, (_, i) => `busy${i},busy${i}@example.com,${hash}`).join('\n')}\n`;
    const job = String((await upload(h(), api.user, cookie, 'busy.csv', file)).headers.location).replace(/\?.*$/, '');
    const chosen = { 'map:0': 'login', 'map:1': 'email', 'map:2': 'password_hash', passwords: 'reject' };
    expect((await form(h(), `${job}/check`, chosen, cookie)).status).toBe(303);
    const again = await form(h(), `${job}/check`, chosen, cookie);
    expect([again.status, again.body.includes('A run of this import is in progress: wait for it to end, then start another.')]).toEqual([409, true]);
    expect((await settled(h(), job, cookie)).body).toMatch(/New members \(would be made\)<\/th><td>20,000</);
  }, 60_000);

  it('refuses a file of no known format, or not in its format, naming the parameter', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `import-bad-${api.user}@example.com`, api.user);
    const unknown = await upload(h(), api.user, cookie, 'members.xlsx', 'PK\u0003\u0004');
    expect([unknown.status, unknown.headers['content-type']]).toEqual([400, 'text/html; charset=utf-8']);
    expect(unknown.body).toContain('Invalid parameter: file: cannot tell the format of “members.xlsx”: name it .csv or .jsonl, or choose the format.');
    const notJson = await upload(h(), api.user, cookie, 'members.jsonl', 'login,email\nann,ann@example.com\n');
    expect([notJson.status, notJson.body.includes('Invalid parameter: file: the file is not JSON Lines: its first line is not a JSON object.')]).toEqual([
      400,
      true,
    ]);
    const empty = await upload(h(), api.user, cookie, 'members.csv', '');
    expect([empty.status, empty.body.includes('Invalid parameter: file: the file is empty')]).toEqual([400, true]);
    const twice = await upload(h(), api.user, cookie, 'members.csv', 'login,email,email\nann,a@example.com,b@example.com\n');
    expect([twice.status, twice.body.includes('Invalid parameter: file: the header names the column “email” twice: rename one.')]).toEqual([400, true]);
    const format = await upload(h(), api.user, cookie, 'members.csv', 'login\nann\n', 'xml');
    expect([format.status, format.body.includes('Invalid parameter: format: csv or jsonl.')]).toEqual([400, true]);
    const urlEncoded = await form(h(), `/admin/accounts/${api.user}/members/import`, { file: 'login\nann' }, cookie);
    expect([urlEncoded.status, urlEncoded.body.includes('Invalid parameter: file: send the form as multipart/form-data')]).toEqual([400, true]);
  });

  it('keeps a job to its account: a viewer imports nothing, another account’s operator finds no job', async () => {
    const api = await apiAccount(h());
    const other = await apiAccount(h());
    const cookie = await signedIn(h(), `import-own-${api.user}@example.com`, api.user);
    const uploaded = await upload(h(), api.user, cookie, 'a.csv', 'login,email\nann,ann@example.com\n');
    const job = String(uploaded.headers.location).replace(/\?.*$/, '');
    const id = job.split('/').at(-1)!;
    const viewer = await signedIn(h(), `import-viewer-${api.user}@example.com`, api.user, 'viewer');
    expect((await get(h(), `/admin/accounts/${api.user}/members/import`, viewer)).status).toBe(403);
    expect((await upload(h(), api.user, viewer, 'a.csv', 'login,email\nbob,bob@example.com\n')).status).toBe(403);
    expect((await get(h(), job, viewer)).status).toBe(403);
    expect((await form(h(), `${job}/check`, { 'map:0': 'login', 'map:1': 'email' }, viewer)).status).toBe(403);
    // An operator of the other account: under its own account the job is unknown (404), and
    // the first account is not its to see (404).
    const stranger = await signedIn(h(), `import-stranger-${other.user}@example.com`, other.user);
    const foreign = await get(h(), `/admin/accounts/${other.user}/members/import/${id}`, stranger);
    expect([foreign.status, foreign.body.includes('There is no such import in this account')]).toEqual([404, true]);
    expect((await form(h(), `/admin/accounts/${other.user}/members/import/${id}/run`, {}, stranger)).status).toBe(404);
    expect((await get(h(), `/admin/accounts/${other.user}/members/import/${id}/rejects`, stranger)).status).toBe(404);
    expect((await get(h(), job, stranger)).status).toBe(404);
    // Even an operator of both accounts sees the job under its own account only.
    await h().services.operators.add(`import-own-${api.user}@example.com`, other.user, 'editor');
    expect((await get(h(), `/admin/accounts/${other.user}/members/import/${id}`, cookie)).status).toBe(404);
    expect((await get(h(), job, cookie)).status).toBe(200);
  });
});

describeEachEngineApp(
  'the console’s import size limit',
  (h) => {
    it('refuses an upload over IMPORT_UPLOAD_LIMIT_BYTES with 413, keeping nothing', async () => {
      const api = await apiAccount(h());
      const cookie = await signedIn(h(), `import-big-${api.user}@example.com`, api.user);
      const big = `login,email\n${Array.from({ length: 200 }, (_, i) => `member${i},member${i}@example.com`).join('\n')}\n`;
      expect(big.length).toBeGreaterThan(2048);
      const refused = await upload(h(), api.user, cookie, 'big.csv', big);
      expect([refused.status, refused.headers['content-type']]).toEqual([413, 'text/html; charset=utf-8']);
      expect(refused.body).toContain('Invalid parameter: file: larger than the 2 KiB the server takes (IMPORT_UPLOAD_LIMIT_BYTES).');
      const small = await upload(h(), api.user, cookie, 'small.csv', 'login,email\nann,ann@example.com\n');
      expect(small.status).toBe(303);
    });
  },
  { env: { IMPORT_UPLOAD_LIMIT_BYTES: '2048' } },
);

const logLines: string[] = [];
const logTo = new PassThrough();
logTo.on('data', (chunk: Buffer) => logLines.push(...chunk.toString().split('\n').filter(Boolean)));

describeEachEngineApp(
  'a console import that fails',
  (h) => {
    it('logs an unexpected failure with the account and the job, and shows the operator only that it happened', async () => {
      const api = await apiAccount(h());
      const cookie = await signedIn(h(), `import-fail-${api.user}@example.com`, api.user);
      const folders = () => new Set(readdirSync(tmpdir()).filter((name) => name.startsWith(`member-api-import-${process.pid}-`)));
      const before = folders();
      const uploaded = await upload(h(), api.user, cookie, 'gone.csv', 'login,email\nann,ann@example.com\n');
      const job = String(uploaded.headers.location).replace(/\?.*$/, '');
      const id = job.split('/').at(-1)!;
      // The uploaded file goes away under the server (a cleaner of the temporary folder): an error the importer does not mean.
      const made = [...folders()].filter((name) => !before.has(name));
      expect(made).toHaveLength(1);
      rmSync(join(tmpdir(), made[0]!, 'upload.csv'));
      await form(h(), `${job}/check`, { 'map:0': 'login', 'map:1': 'email', passwords: 'reject' }, cookie);
      const failed = await settled(h(), job, cookie);
      expect(failed.body).toContain('The dry run stopped');
      expect(failed.body).toContain('the import stopped on an unexpected error; the server’s log has it');
      expect(failed.body).not.toContain('ENOENT');
      const logged = logLines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.importJob === id);
      expect(logged).toMatchObject({ msg: 'console import failed', account: api.user, accountId: api.account.id, dryRun: true });
      expect(JSON.stringify(logged)).toContain('ENOENT');
    });
  },
  { logTo },
);
