import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';

const ERROR = (message: string) => ({ result: 'ERROR', message });
const at = (iso: string) => Date.parse(iso);

describeEachEngineApp('/api2/list/', (h) => {
  it('answers {id}{login}{email}{status} without a record, in id order, with members_total', async () => {
    const api = await apiAccount(h());
    const a = await api.create('first');
    const b = await api.create('second');
    const reply = await api.list();
    // The total follows the members, so that a list starts at once (docs/api.md: /api2/list/).
    expect(Object.keys(reply)).toEqual(['members', 'members_total']);
    expect(reply).toEqual({
      members_total: 2,
      members: [
        { id: a.id, login: 'first', email: 'first@example.com', status: 'Active' },
        { id: b.id, login: 'second', email: 'second@example.com', status: 'Active' },
      ],
    });
  });

  it('answers GET and POST alike, with parameters in the query string or the body', async () => {
    const api = await apiAccount(h());
    await api.create('getter');
    const query = new URLSearchParams({ user: api.user, api_key: api.apiKey, record: '{login}' });
    const get = await h().request({ method: 'GET', url: `/api2/list/?${query}` });
    const post = await h().request({
      method: 'POST',
      url: '/api2/list',
      payload: query.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(get.json).toEqual({ members_total: 1, members: [{ login: 'getter' }] });
    expect(post.body).toBe(get.body);
  });

  it('renders every built-in field as a string, in the account’s time zone', async () => {
    const api = await apiAccount(h(), { timeZone: 'America/New_York' });
    h().clock.set('2026-01-15T03:30:00Z'); // 22:30 on the 14th in New York
    await api.create('full', { set_is_exp_time: '1', set_exp_time: '1', set_exp_time_type: 'M' });
    h().clock.set('2026-01-20T12:00:05Z');
    await api.login('full');
    await api.insert({
      login: 'payer',
      regType: 'P',
      regAt: at('2025-07-04T16:00:00Z'),
      billPc: 'paypal',
      billId: 'TX-1',
      billItem: 'gold',
      billCust: 'C-7',
      billSubscr: 'I-SUB',
      billQty: '2',
    });
    await api.insert({ login: 'manual', regType: 'M', regAt: at('2025-07-04T16:00:00Z'), billPc: 'check' });
    const record =
      '{id}{login}{email}{status}{reg_date}{reg_time}{reg_type}{exp_date}{exp_time}{last_login_date}{last_login_time}{bill_pc}{bill_id}{bill_item}{bill_cust}{bill_subscr}{bill_qty}';
    const { members } = await api.list({ record });
    const full = members.find((m: { login: string }) => m.login === 'full');
    expect(full).toEqual({
      id: String((await api.member('full'))!.id),
      login: 'full',
      email: 'full@example.com',
      status: 'Active',
      reg_date: '2026-01-14',
      reg_time: '2026-01-14 22:30:00',
      reg_type: 'API',
      exp_date: '2026-02-14',
      exp_time: '2026-02-14 22:30:00',
      last_login_date: '2026-01-20',
      last_login_time: '2026-01-20 07:00:05',
      bill_pc: '',
      bill_id: '',
    });
    expect(Object.keys(full)).toEqual([
      'id',
      'login',
      'email',
      'status',
      'reg_date',
      'reg_time',
      'reg_type',
      'exp_date',
      'exp_time',
      'last_login_date',
      'last_login_time',
      'bill_pc',
      'bill_id',
    ]);
    const payer = members.find((m: { login: string }) => m.login === 'payer');
    expect(payer).toMatchObject({
      reg_type: 'Paid',
      reg_date: '2025-07-04',
      reg_time: '2025-07-04 12:00:00',
      exp_date: '',
      last_login_date: '',
      last_login_time: '',
    });
    expect(payer).toMatchObject({ bill_pc: 'paypal', bill_id: 'TX-1', bill_item: 'gold', bill_cust: 'C-7', bill_subscr: 'I-SUB', bill_qty: '2' });
    const manual = members.find((m: { login: string }) => m.login === 'manual');
    expect(manual.reg_type).toBe('Manual');
    expect(Object.keys(manual)).not.toContain('bill_item');
    for (const member of members) for (const value of Object.values(member)) expect(typeof value).toBe('string');
  });

  it('renders Free and the three statuses', async () => {
    const api = await apiAccount(h());
    await api.insert({ login: 'free', regType: 'F' });
    await api.insert({ login: 'sus', status: 'S' });
    await api.insert({ login: 'del', status: 'D' });
    expect((await api.list({ record: '{login}{reg_type}{status}', login: 'free' })).members).toEqual([{ login: 'free', reg_type: 'Free', status: 'Active' }]);
    expect((await api.list({ record: '{status}', status: 'S' })).members).toEqual([{ status: 'Suspended' }]);
    expect((await api.list({ record: '{status}', status: 'D' })).members).toEqual([{ status: 'Deleted' }]);
  });

  it('returns profile fields by name, "" where the member lacks one, each token once', async () => {
    const api = await apiAccount(h());
    await api.create('withname', { first_name: 'Ada', 'last.name': 'Lovelace' });
    await api.create('without');
    const { members } = await api.list({ record: '{login}{first_name}{last.name}{login}{first_name}' });
    expect(members).toEqual([
      { login: 'withname', first_name: 'Ada', 'last.name': 'Lovelace' },
      { login: 'without', first_name: '', 'last.name': '' },
    ]);
  });

  it('refuses a record that is not a run of {name} tokens naming fields', async () => {
    const api = await apiAccount(h());
    for (const record of ['{id}x', 'id', '{}', '{login', '{id}{', '{Login}', '{bad name}', '{a{b}}', '{_x}', '{password}']) {
      expect(await api.list({ record }), record).toEqual(ERROR('invalid parameter: record (a run of {name} tokens, each a built-in field or a profile field)'));
    }
  });

  it('filters by part of the login or e-mail, case-insensitively, and by the whole of either', async () => {
    const api = await apiAccount(h());
    await api.create('JohnSmith', { _email: 'John.Smith@Example.com' });
    await api.create('johnny', { _email: 'j@other.org' });
    await api.create('Émile', { _email: 'emile@example.com' });
    expect(await api.logins({ login: 'JOHN' })).toEqual(['JohnSmith', 'johnny']);
    expect(await api.logins({ login: 'nsm' })).toEqual(['JohnSmith']);
    expect(await api.logins({ login: 'ÉMI' })).toEqual(['Émile']);
    expect(await api.logins({ login: 'h' })).toEqual(['JohnSmith', 'johnny']);
    expect(await api.logins({ login_full: 'JOHNNY' })).toEqual(['johnny']);
    expect(await api.logins({ login_full: 'john' })).toEqual([]);
    expect(await api.logins({ email: 'EXAMPLE.com' })).toEqual(['JohnSmith', 'Émile']);
    expect(await api.logins({ email: 'TH' })).toEqual(['JohnSmith', 'johnny']);
    expect(await api.logins({ email_full: 'j@OTHER.org' })).toEqual(['johnny']);
    expect(await api.logins({ email_full: 'other.org' })).toEqual([]);
  });

  it('matches % and _ in search text as themselves', async () => {
    const api = await apiAccount(h());
    await api.create('100%_sure');
    await api.create('100xxsure');
    await api.create('a_b', { note: '50% off' });
    await api.create('axb', { note: '50 off' });
    expect(await api.logins({ login: '0%_' })).toEqual(['100%_sure']);
    expect(await api.logins({ login: '%' })).toEqual(['100%_sure']);
    expect(await api.logins({ login: '_' })).toEqual(['100%_sure', 'a_b']);
    expect(await api.logins({ profile: '0% o' })).toEqual(['a_b']);
    expect(await api.logins({ 'profile:note': '%' })).toEqual(['a_b']);
  });

  it('searches the whole profile, or one named field', async () => {
    const api = await apiAccount(h());
    await api.create('p1', { city: 'Paris', bio: 'likes Lyon' });
    await api.create('p2', { city: 'Lyon' });
    await api.create('p3', { town: 'LYONNAIS' });
    expect(await api.logins({ profile: 'lyon' })).toEqual(['p1', 'p2', 'p3']);
    expect(await api.logins({ 'profile:city': 'LYON' })).toEqual(['p2']);
    expect(await api.logins({ 'profile:city': 'ar' })).toEqual(['p1']);
    expect(await api.logins({ 'profile:city': 'lyon', 'profile:bio': 'x' })).toEqual([]);
    expect(await api.logins({ 'profile:missing': 'lyon' })).toEqual([]);
    expect(await api.list({ 'profile:bad name': 'x' })).toEqual(ERROR('invalid parameter: profile:bad name (1 to 64 of A-Z a-z 0-9 _ . -)'));
  });

  it('filters by status, leaving Deleted members out unless asked for', async () => {
    const api = await apiAccount(h());
    await api.insert({ login: 'a1', status: 'A' });
    await api.insert({ login: 's1', status: 'S' });
    await api.insert({ login: 'd1', status: 'D' });
    expect(await api.logins()).toEqual(['a1', 's1']);
    expect(await api.logins({ status: 'A' })).toEqual(['a1']);
    expect(await api.logins({ status: 'S' })).toEqual(['s1']);
    expect(await api.logins({ status: 'D' })).toEqual(['d1']);
    for (const bad of ['X', 'Active']) expect(await api.list({ status: bad })).toEqual(ERROR('invalid parameter: status (one of A S D, in either case)'));
  });

  it('filters by registration type', async () => {
    const api = await apiAccount(h());
    await api.insert({ login: 'f', regType: 'F' });
    await api.insert({ login: 'p', regType: 'P' });
    await api.insert({ login: 'm', regType: 'M' });
    await api.create('a');
    expect(await api.logins({ reg_type: 'F' })).toEqual(['f']);
    expect(await api.logins({ reg_type: 'P' })).toEqual(['p']);
    expect(await api.logins({ reg_type: 'A' })).toEqual(['a']);
    expect(await api.logins({ reg_type: 'M' })).toEqual(['m']);
    expect(await api.list({ reg_type: 'Paid' })).toEqual(ERROR('invalid parameter: reg_type (one of F P A M, in either case)'));
  });

  it('filters by registration day, in the account’s time zone', async () => {
    const api = await apiAccount(h(), { timeZone: 'Asia/Tokyo' });
    // 2026-03-10 in Tokyo runs from 2026-03-09T15:00Z to 2026-03-10T15:00Z.
    await api.insert({ login: 'd09', regAt: at('2026-03-09T14:59:59Z') });
    await api.insert({ login: 'd10a', regAt: at('2026-03-09T15:00:00Z') });
    await api.insert({ login: 'd10b', regAt: at('2026-03-10T14:59:59Z') });
    await api.insert({ login: 'd11', regAt: at('2026-03-10T15:00:00Z') });
    expect(await api.logins({ register_after: '2026-03-09' })).toEqual(['d10a', 'd10b', 'd11']);
    expect(await api.logins({ register_after: '2026-03-10' })).toEqual(['d11']);
    expect(await api.logins({ register_before: '2026-03-10' })).toEqual(['d09']);
    expect(await api.logins({ register_before: '2026-03-11' })).toEqual(['d09', 'd10a', 'd10b']);
    expect(await api.logins({ register_after: '2026-03-09', register_before: '2026-03-11' })).toEqual(['d10a', 'd10b']);
    for (const bad of ['2026-3-10', '2026-02-30', '10/03/2026', 'yesterday']) {
      expect(await api.list({ register_after: bad }), bad).toEqual(ERROR('invalid parameter: register_after (a day as YYYY-MM-DD)'));
      expect(await api.list({ register_before: bad }), bad).toEqual(ERROR('invalid parameter: register_before (a day as YYYY-MM-DD)'));
    }
  });

  it('limits by count (members_total still counts all), by recent registration, or both', async () => {
    const api = await apiAccount(h());
    h().clock.set('2026-07-01T00:00:00Z');
    for (const [login, ago] of [
      ['old', 7200],
      ['mid', 1800],
      ['new1', 60],
      ['new2', 30],
    ] as const) {
      await api.insert({ login, regAt: h().clock.now() - ago * 1000 });
    }
    const limited = await api.list({ record: '{login}', limit: '2' });
    expect(limited).toEqual({ members_total: 4, members: [{ login: 'old' }, { login: 'mid' }] });
    expect(await api.logins({ limit: '3600s' })).toEqual(['mid', 'new1', 'new2']);
    const both = await api.list([
      ['record', '{login}'],
      ['limit', '3600s'],
      ['limit', '1'],
    ]);
    expect(both).toEqual({ members_total: 3, members: [{ login: 'mid' }] });
    expect((await api.list({ limit: '0' })).members).toEqual([]);
    for (const bad of ['-1', '1.5', 'ten', '10m', 's', '12345678901'])
      expect(await api.list({ limit: bad }), bad).toEqual(ERROR('invalid parameter: limit (NNN (how many) or NNNs (registered in the last NNN seconds))'));
  });

  it('lists members deleted in the last NNN seconds with limitd', async () => {
    const api = await apiAccount(h());
    h().clock.set('2026-08-01T12:00:00Z');
    await api.create('d-old');
    await api.create('d-new');
    await api.create('alive');
    await api.update({ find_member_login: 'd-old', status: 'D' });
    h().clock.advance(3_600_000);
    await api.update({ find_member_login: 'd-new', status: 'D' });
    h().clock.advance(60_000);
    expect(await api.logins({ limitd: '120s' })).toEqual(['d-new']);
    expect(await api.logins({ limitd: '7200s' })).toEqual(['d-old', 'd-new']);
    for (const bad of ['120', '2h', 'x'])
      expect(await api.list({ limitd: bad }), bad).toEqual(ERROR('invalid parameter: limitd (NNNs (deleted in the last NNN seconds))'));
  });

  it('combines filters with AND', async () => {
    const api = await apiAccount(h());
    await api.insert({ login: 'match', regType: 'P', status: 'S', profile: new Map([['city', 'Oslo']]) });
    await api.insert({ login: 'wrong-type', regType: 'F', status: 'S', profile: new Map([['city', 'Oslo']]) });
    await api.insert({ login: 'wrong-city', regType: 'P', status: 'S', profile: new Map([['city', 'Rome']]) });
    expect(await api.logins({ reg_type: 'P', status: 'S', 'profile:city': 'osl', login: 'a' })).toEqual(['match']);
  });

  it('shows a due time expiration at once, before any sweep', async () => {
    const api = await apiAccount(h());
    h().clock.set('2026-09-01T00:00:00Z');
    await api.create('soon-s', { set_is_exp_time: '1', set_exp_time: '5', set_exp_time_type: 'm' });
    await api.create('soon-d', { set_is_exp_time: '2', set_exp_time: '5', set_exp_time_type: 'm' });
    expect(await api.logins({ status: 'A' })).toEqual(['soon-s', 'soon-d']);
    h().clock.advance(5 * 60_000);
    expect(await api.logins({ status: 'A' })).toEqual([]);
    expect(await api.logins()).toEqual(['soon-s']);
    expect((await api.list({ record: '{login}{status}', status: 'S' })).members).toEqual([{ login: 'soon-s', status: 'Suspended' }]);
    expect(await api.logins({ limitd: '60s' })).toEqual(['soon-d']);
  });

  it('refuses search texts longer than any value they could match (login 64, e-mail 254, profile 256)', async () => {
    const api = await apiAccount(h());
    await api.create('x'.repeat(64));
    expect(await api.logins({ login: 'x'.repeat(64) })).toEqual(['x'.repeat(64)]);
    expect(await api.list({ login: 'x'.repeat(65) })).toEqual(ERROR('invalid parameter: login (too long: at most 64 characters)'));
    expect(await api.list({ login_full: 'x'.repeat(65) })).toEqual(ERROR('invalid parameter: login_full (too long: at most 64 characters)'));
    expect(await api.list({ email: 'e'.repeat(255) })).toEqual(ERROR('invalid parameter: email (too long: at most 254 characters)'));
    expect(await api.list({ profile: 'p'.repeat(257) })).toEqual(ERROR('invalid parameter: profile (too long: at most 256 characters)'));
    expect(await api.list({ 'profile:city': 'p'.repeat(257) })).toEqual(ERROR('invalid parameter: profile:city (too long: at most 256 characters)'));
    expect((await api.list({ profile: 'p'.repeat(256) })).members_total).toBe(0);
  });

  it('refuses unknown parameters, naming them, so that a misspelled filter never lists everyone', async () => {
    const api = await apiAccount(h());
    expect(await api.list({ stauts: 'A' })).toEqual(ERROR('unknown parameter: stauts (did you mean status?)'));
    expect(await api.list({ emial_full: 'a@example.com' })).toEqual(ERROR('unknown parameter: emial_full (did you mean email_full?)'));
    // Any other name is likely a profile field, whose filter is profile:NAME.
    expect(await api.list({ first_name: 'Alice' })).toEqual(ERROR('unknown parameter: first_name (did you mean profile:first_name?)'));
    expect(await api.list({ _login: 'x' })).toEqual(ERROR('unknown parameter: _login (did you mean login?)'));
  });

  it('needs the right key, and shows nothing of another account', async () => {
    const owner = await apiAccount(h());
    const other = await apiAccount(h());
    await owner.create('private', { secret: 'x' });
    expect(await other.list({ record: '{login}', login: 'private' })).toEqual({ members_total: 0, members: [] });
    expect(await other.list({ record: '{login}', profile: 'x' })).toEqual({ members_total: 0, members: [] });
    const wrong = await h().post('/api2/list/', { user: owner.user, api_key: other.apiKey });
    expect(wrong.body).toBe('{"result":"ERROR","message":"wrong api key"}');
  });
});
