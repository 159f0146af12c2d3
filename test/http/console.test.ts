/**
 * The console's doors over HTTP, on both engines (the browser test drives the same pages in
 * Chromium): set-up links carry their token out of the path and out of every log, sign-in
 * tells nobody whether an operator exists or is locked, its forms are read small, and an edit
 * form's free-form field can only ever name a profile field.
 */
import { readFileSync } from 'node:fs';
import { generateSync } from 'otplib';
import { expect, it } from 'vitest';
import { describeEachEngineApp, type Reply } from '../support/app.js';
import { addOperator, form, FORM, PASSWORD, signedIn } from '../support/console.js';
import { apiAccount } from '../support/member-api.js';

describeEachEngineApp('the console over HTTP', (h) => {
  it('opens a set-up link from its query and takes the token in the form’s body, never in a path', async () => {
    const api = await apiAccount(h());
    const token = await addOperator(h(), `setup-${api.user}@example.com`, api.user);
    const page = await h().request({ method: 'GET', url: `/admin/setup?token=${token}` });
    expect(page.status).toBe(200);
    expect(page.body).toContain('action="/admin/setup"');
    expect(page.body).toContain(`name="token" value="${token}"`);
    // The old form of the link, with the token as a path segment, is no route (it would be logged whole).
    expect((await h().request({ method: 'GET', url: `/admin/setup/${token}` })).status).toBe(404);
    const set = await form(h(), '/admin/setup', { token, password: PASSWORD, confirm: PASSWORD });
    expect([set.status, set.headers.location]).toEqual([303, '/admin/']);
    expect(String(set.headers['set-cookie'])).toMatch(/^console_session=.+; Path=\/admin; HttpOnly; SameSite=Strict/);
    // Used up: the page and the form both say so.
    expect((await h().request({ method: 'GET', url: `/admin/setup?token=${token}` })).status).toBe(410);
    expect((await form(h(), '/admin/setup', { token, password: PASSWORD, confirm: PASSWORD })).status).toBe(410);
    // (The suite's ledger fails it if the token, sent in the query and in bodies, reached the log.)
  });

  it('ships a proxy configuration whose access log leaves out query strings', () => {
    const nginx = readFileSync('deploy/nginx.conf', 'utf8');
    const format = /^log_format[^;]*;/m.exec(nginx)?.[0] ?? '';
    expect(format).toContain('$uri');
    // Each of these carries the query (where set-up and reset tokens, and keys, travel).
    for (const variable of ['$request ', '$request"', '$request_uri', '$args', '$query_string', '$arg_']) expect(format).not.toContain(variable);
  });

  it('answers an unknown e-mail, a wrong password and a locked operator alike', async () => {
    const api = await apiAccount(h());
    const email = `locked-${api.user}@example.com`;
    const token = await addOperator(h(), email, api.user);
    await form(h(), '/admin/setup', { token, password: PASSWORD, confirm: PASSWORD });
    const attempt = async (who: string, password: string) => {
      const reply = await form(h(), '/admin/sign-in', { email: who, password });
      return { status: reply.status, body: reply.body.replaceAll(who, 'EMAIL'), cookie: reply.headers['set-cookie'] };
    };
    const unknown = await attempt(`nobody-${api.user}@example.com`, 'wrong-password-here');
    const wrong = await attempt(email, 'wrong-password-here');
    expect(unknown.status).toBe(401);
    expect(wrong).toEqual(unknown);
    // The 30th failure in a row locks it: the answers stay the same, the right password too.
    for (let i = 0; i < 29; i++) expect(await attempt(email, 'wrong-password-here')).toEqual(unknown);
    expect(await attempt(email, PASSWORD)).toEqual(unknown);
    expect(await attempt(`nobody-${api.user}@example.com`, 'wrong-password-here')).toEqual(unknown);
  }, 60_000);

  it('reads the sign-in and set-up forms small, and refuses a password longer than any before hashing it', async () => {
    const api = await apiAccount(h());
    const token = await addOperator(h(), `big-${api.user}@example.com`, api.user);
    const big = 'x'.repeat(20 * 1024);
    expect((await form(h(), '/admin/sign-in', { email: `big-${api.user}@example.com`, password: big })).status).toBe(413);
    expect((await form(h(), '/admin/setup', { token, password: big, confirm: big })).status).toBe(413);
    // Within the body limit, over 1,024 characters: refused as a password, never normalised or hashed.
    const long = 'y'.repeat(1025);
    const setup = await form(h(), '/admin/setup', { token, password: long, confirm: long });
    expect([setup.status, setup.body.includes('too long')]).toEqual([400, true]);
    expect((await form(h(), '/admin/sign-in', { email: `big-${api.user}@example.com`, password: long })).status).toBe(401);
  });

  it('lets an edit form add a profile field only, never a selector, a password or a status', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `editor-${api.user}@example.com`, api.user);
    const target = await api.create('target', { city: 'Oslo' });
    await api.create('bystander', { city: 'Rome' });
    const edit = (fields: Record<string, string>) => form(h(), `/admin/accounts/${api.user}/members/${target.id}/edit`, fields, cookie);
    // Each with a real change beside it (the city), which must not happen either.
    for (const [name, value] of [
      ['find_member_id', '*'],
      ['password', 'taken-over-password'],
      ['status', 'D'],
      ['FIND_MEMBER_LOGIN', 'bystander'],
      ['_password', 'taken-over-password'],
      ['user', api.user],
    ]) {
      const reply = await edit({ 'profile:city': 'Lima', new_field: name!, new_value: value! });
      expect(reply.status, name).toBe(400);
      expect(reply.body, name).toContain(`Invalid parameter: new_field (&quot;${name}&quot; is not a profile field&#39;s name`);
    }
    // A field the member has already: changed in its own box, not added again.
    const twice = await edit({ 'profile:city': 'Lima', new_field: 'city', new_value: 'Quito' });
    expect([twice.status, twice.body.includes('new_field (city is a field this member has already')]).toEqual([400, true]);
    // Nothing changed, on either member; a real profile field is added.
    expect((await api.list({ record: '{login}{city}{status}' })).members).toEqual([
      { login: 'target', city: 'Oslo', status: 'Active' },
      { login: 'bystander', city: 'Rome', status: 'Active' },
    ]);
    expect((await api.login('target')).result).toBe('OK');
    const added = await edit({ 'profile:city': 'Oslo', new_field: 'plan', new_value: 'gold' });
    expect([added.status, added.headers.location]).toEqual([303, `/admin/accounts/${api.user}/members/${target.id}?done=saved`]);
    expect(Object.fromEntries((await api.profile('target'))!)).toEqual({ city: 'Oslo', plan: 'gold' });
  });

  it('lists registrations awaiting approval; editors approve or refuse them, owners set the member pages', async () => {
    const api = await apiAccount(h());
    await h().services.accounts.change(api.user, { registration: 'approval' });
    const register = (login: string) =>
      h().request({
        url: `/auth/${api.user}/register`,
        payload: new URLSearchParams({ login, email: `${login}@example.com`, password: 'a-long-password-1', confirm: 'a-long-password-1' }).toString(),
        headers: { ...FORM, 'sec-fetch-site': 'same-origin' },
      });
    await register('pia');
    await register('quinn');
    // Suspended and Free, but not a registration waiting: never in the queue.
    await api.insert({ login: 'imported', regType: 'F', status: 'S' });
    const viewer = await signedIn(h(), `viewer-${api.user}@example.com`, api.user, 'viewer');
    const editor = await signedIn(h(), `editor-${api.user}@example.com`, api.user, 'editor');
    const owner = await signedIn(h(), `owner-${api.user}@example.com`, api.user, 'owner');
    const queue = await h().request({ method: 'GET', url: `/admin/accounts/${api.user}/registrations`, headers: { cookie: viewer } });
    expect(queue.status).toBe(200);
    expect(queue.body).toContain('pia@example.com');
    expect(queue.body).toContain('quinn@example.com');
    expect(queue.body).not.toContain('>imported<');
    expect(queue.body).toContain('<strong>2</strong> waiting');
    const pia = (await api.member('pia'))!;
    const quinn = (await api.member('quinn'))!;
    expect((await form(h(), `/admin/accounts/${api.user}/registrations/${pia.id}/approve`, {}, viewer)).status).toBe(403);
    const approved = await form(h(), `/admin/accounts/${api.user}/registrations/${pia.id}/approve`, {}, editor);
    expect(approved.headers.location).toBe(`/admin/accounts/${api.user}/registrations?done=approved`);
    const after = await h().request({ method: 'GET', url: approved.headers.location as string, headers: { cookie: editor } });
    expect(after.body).toContain('Approved: the member is Active');
    expect(after.body).not.toContain('pia@example.com');
    expect((await api.member('pia'))!.status).toBe('A');
    expect((await api.login('pia', 'a-long-password-1')).result).toBe('OK');
    expect((await form(h(), `/admin/accounts/${api.user}/registrations/${quinn.id}/refuse`, { tell: '1' }, editor)).headers.location).toContain('done=refused');
    expect((await api.member('quinn'))!.status).toBe('D');
    // Decided already: it no longer waits.
    expect((await form(h(), `/admin/accounts/${api.user}/registrations/${pia.id}/approve`, {}, editor)).status).toBe(404);

    // The member pages' settings: owners only, read as `account set` reads them.
    const settings = `/admin/accounts/${api.user}/member-pages`;
    expect((await h().request({ method: 'GET', url: settings, headers: { cookie: editor } })).status).toBe(403);
    expect((await h().request({ method: 'GET', url: settings, headers: { cookie: owner } })).body).toContain('name="registration_fields"');
    const refused = await form(h(), settings, { registration: 'open', return_origins: 'https://www.site.test/path', page_accent: '#0f766e' }, owner);
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('return-origins: &quot;https://www.site.test/path&quot; is not an origin');
    const saved = await form(
      h(),
      settings,
      {
        registration: 'open',
        registration_fields: 'city*:text:City',
        return_origins: 'https://www.site.test https://shop.site.test',
        page_name: 'The Club',
        page_accent: '#0f766e',
        page_language: 'fr',
        check_fields: 'city',
      },
      owner,
    );
    expect(saved.headers.location).toBe(`${settings}?done=saved`);
    const account = (await h().services.accounts.find(api.user))!;
    expect(account.settings).toMatchObject({
      registration: 'open',
      returnOrigins: ['https://www.site.test', 'https://shop.site.test'],
      pageName: 'The Club',
      pageLanguage: 'fr',
      checkFields: ['city'],
    });
    expect(account.settings.registrationFields).toEqual([{ name: 'city', label: 'City', required: true, editable: true, kind: 'text', choices: [] }]);
    // The fields' texts in French, one a line: the French registration page says them.
    expect((await form(h(), settings, { field_texts: 'fr:city=Ville\nfr:plan(gold)=Or' }, owner)).headers.location).toBe(`${settings}?done=saved`);
    expect([...(await h().services.accounts.find(api.user))!.settings.fieldTexts]).toEqual([
      ['fr:city', 'Ville'],
      ['fr:plan(gold)', 'Or'],
    ]);
    const page = await h().request({ method: 'GET', url: `/auth/${api.user}/?action=reg` });
    expect(page.body).toMatch(/<label for="f_city">Ville<\/label>/);
    const wrong = await form(h(), settings, { field_texts: 'de:city=Stadt' }, owner);
    expect([wrong.status, wrong.body.includes('field-texts: &quot;de&quot; is not a language of the pages (en, fr)')]).toEqual([400, true]);
  });

  it('behaves like pages: changes redirect to their result, Delete asks first, unknown addresses answer a console page', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `pages-${api.user}@example.com`, api.user);
    const { id } = await api.create('rosa');
    const path = `/admin/accounts/${api.user}/members/${id}`;
    const suspended = await form(h(), `${path}/status`, { status: 'S' }, cookie);
    expect([suspended.status, suspended.headers.location]).toEqual([303, `${path}?done=status`]);
    const shown = await h().request({ method: 'GET', url: `${path}?done=status`, headers: { cookie } });
    expect(shown.body).toContain('rosa is Suspended now.');
    // Only the console's own words: a link cannot make a page say anything else.
    expect((await h().request({ method: 'GET', url: `${path}?done=%3Cb%3Ehi`, headers: { cookie } })).body).not.toContain('hi</b>');

    const asked = await form(h(), `${path}/status`, { status: 'D' }, cookie);
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('Delete rosa?');
    expect(asked.body).toContain('name="confirm" value="1"');
    expect((await api.member('rosa'))!.status).toBe('S');
    // The history tells one row per change: the status change once, an update with its values.
    await form(h(), `${path}/edit`, { email: 'rosa@new.example', 'profile:city': '' }, cookie);
    const history = (await h().request({ method: 'GET', url: path, headers: { cookie } })).body;
    expect(history).toContain('email: rosa@example.com → rosa@new.example');
    expect(history.match(/status A → S/g)).toHaveLength(1);
    expect(history).not.toContain('changed status');
    const deleted = await form(h(), `${path}/status`, { status: 'D', confirm: '1' }, cookie);
    expect(deleted.headers.location).toBe(`${path}?done=deleted`);
    expect((await api.member('rosa'))!.status).toBe('D');
    // Left out of the members page unless asked for: "All, including Deleted".
    const members = (query: string) => h().request({ method: 'GET', url: `/admin/accounts/${api.user}/members?${query}`, headers: { cookie } });
    expect((await members('q=rosa')).body).toContain('No member matches.');
    expect((await members('q=rosa&status=all')).body).toContain(`href="${path}">rosa</a>`);

    // A form's address opened by GET (a bookmark, a reload in a new tab): the page the form is on, changing nothing.
    const opened = await h().request({ method: 'GET', url: `${path}/sessions/end-all`, headers: { cookie } });
    expect([opened.status, opened.headers.location]).toEqual([303, path]);
    const bulk = await h().request({ method: 'GET', url: `/admin/accounts/${api.user}/members/bulk?q=ros&status=all`, headers: { cookie } });
    expect(bulk.headers.location).toBe(`/admin/accounts/${api.user}/members?q=ros&status=all`);
    expect((await h().request({ method: 'GET', url: '/admin/two-step/enable', headers: { cookie } })).headers.location).toBe('/admin/two-step');
    expect((await h().request({ method: 'GET', url: `/admin/accounts/${api.user}`, headers: { cookie } })).headers.location).toBe(
      `/admin/accounts/${api.user}/members`,
    );
    expect((await api.member('rosa'))!.status).toBe('D');

    const missing = await h().request({ method: 'GET', url: '/admin/no/such/page', headers: { cookie } });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toContain('text/html');
    expect(missing.body).toContain('There is no such page in the console.');
    const home = await h().request({ method: 'GET', url: '/' });
    expect(home.status).toBe(200);
    expect(home.body).toContain('href="/docs"');
    expect(home.body).toContain('href="/admin/"');
  });

  it('applies a bulk action to a filter only after its preview, through the service, with one event', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `bulk-${api.user}@example.com`, api.user);
    for (const login of ['gold1', 'gold2', 'gold3']) await api.create(login, { plan: 'gold' });
    await api.create('silver1', { plan: 'silver' });
    const members = `/admin/accounts/${api.user}/members`;
    const page = (await h().request({ method: 'GET', url: `${members}?q=gold`, headers: { cookie } })).body;
    expect(page).toContain('Bulk action on these 3 members');
    expect(page).toContain(`action="${members}/bulk?q=gold"`);

    // The preview: how many, some of them, a confirmation button; nothing changed yet.
    const preview = await form(h(), `${members}/bulk?q=gold`, { action: 'suspend' }, cookie);
    expect(preview.status).toBe(200);
    expect(preview.body).toContain('Suspend 3 members: they can no longer sign in');
    for (const login of ['gold1', 'gold2', 'gold3']) expect(preview.body).toContain(`>${login}</a>`);
    expect(preview.body).not.toContain('silver1');
    expect(preview.body).toContain('name="confirm" value="1"');
    expect((await api.member('gold1'))!.status).toBe('A');

    // Confirmed: what the preview carries (its instant, the newest member it found, the
    // selection it counted); a member added since is not changed.
    const carried = Object.fromEntries([...preview.body.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
    expect(Object.keys(carried).sort()).toEqual(['action', 'confirm', 'count', 'id_sum', 'now', 'upto']);
    await api.create('gold4', { plan: 'gold' });
    const done = await form(h(), `${members}/bulk?q=gold`, carried, cookie);
    expect([done.status, done.headers.location]).toEqual([303, `${members}?q=gold&done=bulk&changed=3`]);
    expect((await h().request({ method: 'GET', url: String(done.headers.location), headers: { cookie } })).body).toContain('Done: 3 members changed.');
    for (const login of ['gold1', 'gold2', 'gold3']) expect((await api.member(login))!.status).toBe('S');
    expect((await api.member('silver1'))!.status).toBe('A');
    expect((await api.member('gold4'))!.status).toBe('A');
    const bulk = (await api.events({ types: 'member.bulk_updated' })).events as Array<Record<string, unknown>>;
    expect(bulk).toHaveLength(1);
    // Each member it changed shows it in its history; the others do not.
    const historyOf = async (login: string) =>
      (await h().request({ method: 'GET', url: `${members}/${(await api.member(login))!.id}`, headers: { cookie } })).body;
    expect(await historyOf('gold2')).toContain('bulk update of 3 members (a console filter): status → S');
    expect(await historyOf('silver1')).not.toContain('bulk update');
    expect(bulk[0]).toMatchObject({
      actor: { kind: 'operator', email: `bulk-${api.user}@example.com` },
      data: { selector: 'filter', filter: { anyContains: 'gold' }, count: 3, set: { status: 'S' } },
    });

    // A profile field set on the Suspended ones only; a wrong field name is refused by name.
    const now = String(h().clock.now());
    /** The preview of an action, then its confirmation as the preview's button posts it. */
    const confirmed = async (url: string, action: Record<string, string>) => {
      const shown = await form(h(), url, action, cookie);
      return form(
        h(),
        url,
        Object.fromEntries([...shown.body.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!])),
        cookie,
      );
    };
    const set = await confirmed(`${members}/bulk?status=S`, { action: 'set-field', new_field: 'tier', new_value: 'paused' });
    expect(set.headers.location).toBe(`${members}?status=S&done=bulk&changed=3`);
    expect((await api.profile('gold2'))!.get('tier')).toBe('paused');
    expect((await api.profile('silver1'))!.has('tier')).toBe(false);
    for (const name of ['status', 'revoke_sessions', 'dry_run']) {
      const wrong = await form(h(), `${members}/bulk?status=S`, { action: 'set-field', new_field: name, new_value: '1' }, cookie);
      expect(wrong.status).toBe(400);
      expect(wrong.body).toContain('Invalid parameter: new_field');
    }
    const unknown = await form(h(), `${members}/bulk`, { action: 'explode', confirm: '1', now }, cookie);
    expect(unknown.body).toContain('Invalid parameter: action');
    const stale = await form(h(), `${members}/bulk`, { action: 'suspend', confirm: '1', now: String(h().clock.now() - 2 * 3600_000) }, cookie);
    expect(stale.body).toContain('make the preview again');

    // "All, including Deleted": a suspension leaves the Deleted as they are; an activation restores them.
    await api.create('gone1', { plan: 'gone' });
    await api.update({ find_member_login: 'gone1', status: 'D' });
    await api.create('kept1', { plan: 'gone' });
    const all = await form(h(), `${members}/bulk?q=gone&status=all`, { action: 'suspend' }, cookie);
    expect(all.body).toContain('Suspend 1 member:');
    expect(all.body).not.toContain('>gone1</a>');
    await confirmed(`${members}/bulk?q=gone&status=all`, { action: 'suspend' });
    expect([(await api.member('gone1'))!.status, (await api.member('kept1'))!.status]).toEqual(['D', 'S']);
    expect((await form(h(), `${members}/bulk?q=gone&status=all`, { action: 'activate' }, cookie)).body).toContain('Activate 2 members');
    await confirmed(`${members}/bulk?q=gone&status=all`, { action: 'activate' });
    expect([(await api.member('gone1'))!.status, (await api.member('kept1'))!.status]).toEqual(['A', 'A']);

    // A viewer sees no bulk form and its post is refused.
    const viewer = await signedIn(h(), `bulk-viewer-${api.user}@example.com`, api.user, 'viewer');
    expect((await h().request({ method: 'GET', url: members, headers: { cookie: viewer } })).body).not.toContain('Bulk action');
    expect((await form(h(), `${members}/bulk`, { action: 'suspend', confirm: '1', now }, viewer)).status).toBe(403);
    expect((await api.member('silver1'))!.status).toBe('A');
  });

  it('lets an owner change the account’s settings as account set does, keeping a masked password as it is', async () => {
    const api = await apiAccount(h());
    const set = await h().services.accounts.change(api.user, { smtpUrl: 'smtp://user:secret@mail.example.com:587', mailFrom: 'club@example.com' });
    expect(set.kind, JSON.stringify(set)).toBe('ok');
    const owner = await signedIn(h(), `settings-${api.user}@example.com`, api.user, 'owner');
    const path = `/admin/accounts/${api.user}/settings`;
    const page = (await h().request({ method: 'GET', url: path, headers: { cookie: owner } })).body;
    expect(page).toContain('name="time-zone"');
    expect(page).not.toContain('secret');
    expect(page).not.toContain('name="registration"');
    const fields = Object.fromEntries(
      [...page.matchAll(/<input name="([a-z-]+)" id="[a-z-]+" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]),
    );
    const saved = await form(h(), path, { ...fields, 'time-zone': 'Europe/Paris', 'lockout-threshold': '7' }, owner);
    expect([saved.status, saved.headers.location]).toEqual([303, `${path}?done=saved`]);
    const account = (await h().services.accounts.find(api.user))!;
    expect([account.settings.timeZone, account.settings.lockout.threshold, account.settings.smtpUrl]).toEqual([
      'Europe/Paris',
      7,
      'smtp://user:secret@mail.example.com:587',
    ]);
    // A period shows as it is typed, and is left as it is when sent back so.
    expect(fields['session-idle']).toMatch(/^\d+[mhDW]$/);
    // Every value that cannot be used is said at once, beside its field, and nothing is saved.
    const wrong = await form(h(), path, { ...fields, 'time-zone': 'Mars/Olympus', 'lockout-threshold': 'many', 'session-idle': '3 hours' }, owner);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('Nothing was saved: 3 values cannot be used, as said beside each.');
    expect(wrong.body).toMatch(/id="time-zone-error">must be an IANA time zone name/);
    expect(wrong.body).toMatch(/id="lockout-threshold-error">[^<]+</);
    expect(wrong.body).toMatch(/id="session-idle-error">[^<]*period/);
    expect(wrong.body).toContain('value="Mars/Olympus"');
    expect(wrong.body).toContain('<label for="lockout-step">First lock, and each step longer (seconds)</label>');
    expect((await h().services.accounts.find(api.user))!.settings.timeZone).toBe('Europe/Paris');
    const editor = await signedIn(h(), `settings-editor-${api.user}@example.com`, api.user, 'editor');
    expect((await h().request({ method: 'GET', url: path, headers: { cookie: editor } })).status).toBe(403);
    expect((await form(h(), path, { 'time-zone': 'UTC' }, editor)).status).toBe(403);
    expect((await h().services.accounts.find(api.user))!.settings.timeZone).toBe('Europe/Paris');
  });

  it('lets an owner add, rotate (with a grace) and revoke API keys, each new key shown once', async () => {
    const api = await apiAccount(h());
    const owner = await signedIn(h(), `keys-${api.user}@example.com`, api.user, 'owner');
    const path = `/admin/accounts/${api.user}/keys`;
    const shownKey = (body: string) => /<code class="secret">([^<]+)<\/code>/.exec(body)?.[1];
    const lists = async (key: string) => {
      const reply = await h().post('/api2/list/', { user: api.user, api_key: key, record: '{login}' });
      // A list answers its members (the seed's shape, no `result`); a refusal answers ERROR.
      return Array.isArray(reply.json.members) ? 'OK' : (reply.json.result as string);
    };

    const added = await form(h(), `${path}/add`, { name: 'reports', scope: 'read' }, owner);
    expect(added.status).toBe(200);
    const reports = shownKey(added.body)!;
    expect(await lists(reports)).toBe('OK');
    expect(
      (await h().post('/api2/create/', { user: api.user, api_key: reports, _login: 'x1', _email: 'x1@example.com', _password: 'pw-123456' })).json.result,
    ).toBe('ERROR');
    // Shown once: the page itself never shows it again.
    const listed = (await h().request({ method: 'GET', url: path, headers: { cookie: owner } })).body;
    expect(listed).toContain('<td>reports</td><td>read</td>');
    expect(shownKey(listed)).toBeUndefined();
    expect(listed).not.toContain(reports);
    expect((await form(h(), `${path}/add`, { name: 'reports', scope: 'all' }, owner)).status).toBe(400);

    // Rotated with a grace: the new key works, the old one too until the grace ends.
    const rotated = await form(h(), `${path}/rotate`, { name: 'reports', grace: '1h' }, owner);
    const renewed = shownKey(rotated.body)!;
    expect(renewed).not.toBe(reports);
    expect([await lists(renewed), await lists(reports)]).toEqual(['OK', 'OK']);
    h().clock.advance(3_600_001);
    expect([await lists(renewed), await lists(reports)]).toEqual(['OK', 'ERROR']);

    // Revoked: asked first, then it stops at once (signed in again: an hour idle ended the session).
    const again = String((await form(h(), '/admin/sign-in', { email: `keys-${api.user}@example.com`, password: PASSWORD })).headers['set-cookie']).split(
      ';',
    )[0]!;
    const asked = await form(h(), `${path}/revoke`, { name: 'reports' }, again);
    expect(asked.body).toContain('Revoke reports?');
    expect(await lists(renewed)).toBe('OK');
    const revoked = await form(h(), `${path}/revoke`, { name: 'reports', confirm: '1' }, again);
    expect(revoked.headers.location).toBe(`${path}?done=key-revoked`);
    expect(await lists(renewed)).toBe('ERROR');
    const editor = await signedIn(h(), `keys-editor-${api.user}@example.com`, api.user, 'editor');
    expect((await h().request({ method: 'GET', url: path, headers: { cookie: editor } })).status).toBe(403);
    expect((await form(h(), `${path}/add`, { name: 'sneaky' }, editor)).status).toBe(403);
  });

  it('lets an owner invite operators, change their role and take them off the account, never itself', async () => {
    const api = await apiAccount(h());
    const ownerEmail = `ops-${api.user}@example.com`;
    const owner = await signedIn(h(), ownerEmail, api.user, 'owner');
    const path = `/admin/accounts/${api.user}/operators`;
    const invited = await form(h(), path, { email: `new-${api.user}@example.com`, role: 'editor' }, owner);
    expect(invited.status).toBe(200);
    const link = new URL(/<code class="secret">([^<]+)<\/code>/.exec(invited.body)![1]!.replace(/&amp;/g, '&'));
    expect(link.pathname).toBe('/admin/setup');
    // The link sets the new operator's password and signs it in as an editor of the account.
    const token = link.searchParams.get('token')!;
    const set = await form(h(), '/admin/setup', { token, password: PASSWORD, confirm: PASSWORD });
    const editor = String(set.headers['set-cookie']).split(';')[0]!;
    expect((await h().request({ method: 'GET', url: `/admin/accounts/${api.user}/members`, headers: { cookie: editor } })).status).toBe(200);
    expect((await h().request({ method: 'GET', url: path, headers: { cookie: editor } })).status).toBe(403);
    // A role changed (no new link for an operator with a password), then taken off.
    const viewer = await form(h(), path, { email: `new-${api.user}@example.com`, role: 'viewer' }, owner);
    expect(viewer.body).toContain(`new-${api.user}@example.com is viewer on ${api.user}.`);
    expect(viewer.body).not.toContain('class="secret"');
    expect((await h().services.operators.find(`new-${api.user}@example.com`))!.accounts.map((grant) => grant.role)).toEqual(['viewer']);
    const removed = await form(h(), `${path}/remove`, { email: `new-${api.user}@example.com` }, owner);
    expect(removed.headers.location).toBe(`${path}?done=operator-removed`);
    expect((await h().request({ method: 'GET', url: `/admin/accounts/${api.user}/members`, headers: { cookie: editor } })).status).toBe(404);
    // Never itself, and nothing but an e-mail and a role.
    expect((await form(h(), `${path}/remove`, { email: ownerEmail }, owner)).status).toBe(400);
    expect((await form(h(), path, { email: ownerEmail, role: 'viewer' }, owner)).status).toBe(400);
    expect((await form(h(), path, { email: 'not-an-address', role: 'viewer' }, owner)).body).toContain('email: must be an e-mail address.');
    expect((await form(h(), path, { email: `x-${api.user}@example.com`, role: 'admin' }, owner)).body).toContain('role: must be one of viewer, editor, owner.');
  });

  it('turns a second step on with a code, asks for it at sign-in (a code once, a recovery code once), and lets an account require it', async () => {
    const api = await apiAccount(h());
    const email = `totp-${api.user}@example.com`;
    const cookie = await signedIn(h(), email, api.user);
    h().clock.set('2026-11-26T10:00:00Z');
    const codeAt = (secret: string) => generateSync({ secret, epoch: Math.floor(h().clock.now() / 1000) });
    const get = (url: string, with_: string) => h().request({ method: 'GET', url, headers: { cookie: with_ } });

    // Enrolment: a key for the app; a wrong code changes nothing, the right one shows ten recovery codes once.
    const enrol = (await get('/admin/two-step', cookie)).body;
    const secret = /<code class="secret">([A-Z2-7 ]+)<\/code>/.exec(enrol)![1]!.replace(/ /g, '');
    expect(enrol).toContain(`otpauth://totp/member-api:${encodeURIComponent(email)}?secret=${secret}`);
    expect((await form(h(), '/admin/two-step/enable', { code: '000000' }, cookie)).status).toBe(400);
    const enabled = await form(h(), '/admin/two-step/enable', { code: codeAt(secret) }, cookie);
    expect(enabled.status).toBe(200);
    const codes = [...enabled.body.matchAll(/<li><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]!);
    expect(codes).toHaveLength(10);
    expect((await get('/admin/two-step', cookie)).body).toContain('10 of your recovery codes are left');

    // Sign-in: the password opens the second step only; a wrong code is refused; a code works once.
    const password = await form(h(), '/admin/sign-in', { email, password: PASSWORD });
    expect([password.status, password.headers.location]).toEqual([303, '/admin/sign-in/code']);
    const pending = String(password.headers['set-cookie']).split(';')[0]!;
    expect(pending).toMatch(/^console_pending=./);
    expect(String(password.headers['set-cookie'])).toContain('Path=/admin/sign-in/code');
    const asPending = pending.replace('console_pending=', 'console_session=');
    expect((await get(`/admin/accounts/${api.user}/members`, asPending)).headers.location).toBe('/admin/sign-in');
    expect((await form(h(), '/admin/sign-in/code', { code: '123456' }, pending)).status).toBe(401);
    h().clock.advance(30_000);
    const code = codeAt(secret);
    const second = await form(h(), '/admin/sign-in/code', { code }, pending);
    expect([second.status, second.headers.location]).toEqual([303, '/admin/']);
    const full = String(second.headers['set-cookie']).match(/console_session=[^;]+/)![0];
    expect(full).not.toBe(asPending);
    expect((await get(`/admin/accounts/${api.user}/members`, full)).status).toBe(200);
    // The same code again, on a new sign-in: taken already.
    const again = String((await form(h(), '/admin/sign-in', { email, password: PASSWORD })).headers['set-cookie']).split(';')[0]!;
    expect((await form(h(), '/admin/sign-in/code', { code }, again)).status).toBe(401);
    // A recovery code, typed loosely, works once.
    expect((await form(h(), '/admin/sign-in/code', { code: ` ${codes[0]!.toUpperCase()} ` }, again)).headers.location).toBe('/admin/');
    const third = String((await form(h(), '/admin/sign-in', { email, password: PASSWORD })).headers['set-cookie']).split(';')[0]!;
    expect((await form(h(), '/admin/sign-in/code', { code: codes[0]! }, third)).status).toBe(401);
    expect((await get('/admin/two-step', full)).body).toContain('9 of your recovery codes are left');

    // An account that requires it: an operator without one is sent to set it up; the one with it cannot turn it off.
    await h().services.accounts.change(api.user, { operatorsTwoStep: 'required' });
    const plain = await signedIn(h(), `plain-${api.user}@example.com`, api.user);
    expect((await get(`/admin/accounts/${api.user}/members`, plain)).headers.location).toBe(`/admin/two-step?required=${api.user}`);
    h().clock.advance(30_000);
    const kept = await form(h(), '/admin/two-step/disable', { code: codeAt(secret) }, full);
    expect(kept.status).toBe(400);
    expect(kept.body).toContain(`The account ${api.user} requires a second step`);
    // Not required any more: off with a code.
    await h().services.accounts.change(api.user, { operatorsTwoStep: 'optional' });
    h().clock.advance(30_000);
    expect((await form(h(), '/admin/two-step/disable', { code: codeAt(secret) }, full)).headers.location).toBe('/admin/two-step?done=two-step-off');
    expect((await h().services.operators.find(email))!.twoStep).toBe(false);
    // Turned on again: every other session of the operator ends (one opened by the password alone).
    const other = String((await form(h(), '/admin/sign-in', { email, password: PASSWORD })).headers['set-cookie']).split(';')[0]!;
    expect((await get(`/admin/accounts/${api.user}/members`, other)).status).toBe(200);
    // On again, then `operator reset` (a lost phone and codes): the password and the second step go.
    const secretAgain = /<code class="secret">([A-Z2-7 ]+)<\/code>/.exec((await get('/admin/two-step', full)).body)![1]!.replace(/ /g, '');
    h().clock.advance(30_000);
    expect((await form(h(), '/admin/two-step/enable', { code: codeAt(secretAgain) }, full)).status).toBe(200);
    expect((await h().services.operators.find(email))!.twoStep).toBe(true);
    expect((await get(`/admin/accounts/${api.user}/members`, other)).headers.location).toBe('/admin/sign-in');
    expect((await get(`/admin/accounts/${api.user}/members`, full)).status).toBe(200);

    // One pending sign-in at a time; wrong codes lock the operator (as wrong passwords do), and
    // then no code is looked at, on any pending sign-in.
    const first = String((await form(h(), '/admin/sign-in', { email, password: PASSWORD })).headers['set-cookie']).split(';')[0]!;
    const latest = String((await form(h(), '/admin/sign-in', { email, password: PASSWORD })).headers['set-cookie']).split(';')[0]!;
    expect((await get('/admin/sign-in/code', first)).headers.location).toBe('/admin/sign-in');
    let answer: Reply | undefined;
    for (let i = 0; i < 30; i++) answer = await form(h(), '/admin/sign-in/code', { code: '000000' }, latest);
    expect(answer!.headers.location).toBe('/admin/sign-in');
    h().clock.advance(30_000);
    expect((await form(h(), '/admin/sign-in/code', { code: codeAt(secretAgain) }, latest)).headers.location).toBe('/admin/sign-in');
    expect((await form(h(), '/admin/sign-in', { email, password: PASSWORD })).status).toBe(401);
    await h().services.operators.reset(email);
    expect(await h().services.operators.find(email)).toMatchObject({ hasPassword: false, twoStep: false });
  });

  it('lists a member’s sessions and ends one or all, marks its address verified, and says when no reset mail can go', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `actions-${api.user}@example.com`, api.user);
    const { id } = await api.create('sami');
    const first = (await api.login('sami')).session as string;
    const second = (await api.login('sami')).session as string;
    const path = `/admin/accounts/${api.user}/members/${id}`;
    const page = (await h().request({ method: 'GET', url: path, headers: { cookie } })).body;
    const digests = [...page.matchAll(/name="session" value="([0-9a-f]{64})"/g)].map((match) => match[1]!);
    expect(digests).toHaveLength(2);
    expect(page).not.toContain(first);
    // "End this one": the newest is listed first.
    const ended = await form(h(), `${path}/sessions/end`, { session: digests[0]! }, cookie);
    expect(ended.headers.location).toBe(`${path}?done=session-ended`);
    expect((await h().post('/api2/session/', { user: api.user, session: second })).json.result).toBe('FAIL');
    expect((await h().post('/api2/session/', { user: api.user, session: first })).json.result).toBe('OK');
    // Another member's session, or one already over: refused, nothing ended.
    expect((await form(h(), `${path}/sessions/end`, { session: digests[0]! }, cookie)).status).toBe(400);
    expect((await form(h(), `${path}/sessions/end-all`, {}, cookie)).headers.location).toBe(`${path}?done=sessions-ended`);
    expect((await h().post('/api2/session/', { user: api.user, session: first })).json.result).toBe('FAIL');

    expect((await form(h(), `${path}/verify`, {}, cookie)).headers.location).toBe(`${path}?done=verified`);
    expect((await api.member('sami'))!.emailVerifiedAt).not.toBeNull();
    const noMail = await form(h(), `${path}/reset-mail`, {}, cookie);
    expect(noMail.status).toBe(400);
    expect(noMail.body).toContain('The account has no mail server');
  });

  it('confirms a bulk action on exactly the members its preview counted: one that came to match meanwhile brings the preview back, nothing changed', async () => {
    const api = await apiAccount(h());
    const cookie = await signedIn(h(), `bulk-${api.user}@example.com`, api.user);
    for (const login of ['bulkx-1', 'other-2', 'bulkx-3', 'bulkx-4']) await api.create(login);
    const bulk = `/admin/accounts/${api.user}/members/bulk?q=bulkx`;
    const hidden = (body: string) => Object.fromEntries([...body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]));
    const preview = await form(h(), bulk, { action: 'delete' }, cookie);
    expect(preview.body).toContain('Delete 3 members');
    // Meanwhile, an older member comes to match the filter.
    expect((await api.update({ find_member_login: 'other-2', login: 'bulkx-2' })).result).toBe('OK');
    const stale = await form(h(), bulk, hidden(preview.body), cookie);
    expect(stale.status).toBe(200);
    expect(stale.body).toContain('The members this filter finds changed since the preview');
    expect(stale.body).toContain('Delete 4 members');
    for (const login of ['bulkx-1', 'bulkx-2', 'bulkx-3', 'bulkx-4']) expect((await api.member(login))!.status).toBe('A');
    // The fresh preview, confirmed: its four, and no more.
    const done = await form(h(), bulk, hidden(stale.body), cookie);
    expect(done.headers.location).toBe(`/admin/accounts/${api.user}/members?q=bulkx&done=bulk&changed=4`);
    for (const login of ['bulkx-1', 'bulkx-2', 'bulkx-3', 'bulkx-4']) expect((await api.member(login))!.status).toBe('D');
    // A confirmation whose counted selection was tampered with (or is missing) changes nothing.
    await api.create('bulkx-5');
    const again = hidden((await form(h(), bulk, { action: 'suspend' }, cookie)).body);
    expect((await form(h(), bulk, { ...again, count: '0' }, cookie)).body).toContain('changed since the preview');
    const { count: _count, ...missing } = again;
    expect((await form(h(), bulk, missing, cookie)).status).toBe(400);
    expect((await api.member('bulkx-5'))!.status).toBe('A');
  });
});
