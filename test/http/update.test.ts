import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';

const MINUTE = 60_000;
const OK = (updated: number) => ({ result: 'OK', message: '', updated });
/** `n` profile fields named prefix0, prefix1, …, each 'v'. */
const fields = (n: number, prefix: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, 'v']));
const ERROR = (message: string) => ({ result: 'ERROR', message });

describeEachEngineApp('/api2/update/', (h) => {
  it('finds one member by login, case-insensitively, in any state', async () => {
    const api = await apiAccount(h());
    await api.create('Anna');
    await api.insert({ login: 'gone', status: 'D' });
    expect(await api.update({ find_member_login: 'ANNA', city: 'Oslo' })).toEqual(OK(1));
    expect(await api.update({ find_member_login: 'GONE', city: 'Rome' })).toEqual(OK(1));
    expect(await api.profile('anna')).toEqual(new Map([['city', 'Oslo']]));
    expect(await api.profile('gone')).toEqual(new Map([['city', 'Rome']]));
  });

  it('answers a dry run with how many members would change, and changes nothing', async () => {
    const api = await apiAccount(h());
    await api.create('dry1', { _email: 'same@example.com' });
    await api.create('dry2', { _email: 'same@example.com' });
    await api.insert({ login: 'dry-gone', status: 'D' });
    expect(await api.update({ find_member_id: '*', status: 'S', dry_run: '1' })).toEqual({ result: 'OK', message: '', would_update: 2 });
    expect(await api.update({ find_member_email: 'SAME@example.com', plan: 'gold', dry_run: '1' })).toEqual({ result: 'OK', message: '', would_update: 2 });
    expect(await api.update({ find_member_login: 'nobody', plan: 'gold', dry_run: '1' })).toEqual({ result: 'OK', message: '', would_update: 0 });
    // Checked as the update is: a wrong value is the same ERROR, nothing to change too.
    expect(await api.update({ find_member_id: '*', status: 'X', dry_run: '1' })).toMatchObject({ result: 'ERROR', message: expect.stringContaining('status') });
    expect(await api.update({ find_member_id: '*', dry_run: '1' })).toMatchObject({ result: 'ERROR' });
    expect((await api.member('dry1'))?.status).toBe('A');
    expect((await api.profile('dry2'))?.get('plan')).toBeUndefined();
  });

  it('finds every member with an e-mail address, case-insensitively', async () => {
    const api = await apiAccount(h());
    await api.create('one', { _email: 'Shared@Example.com' });
    await api.create('two', { _email: 'shared@example.COM' });
    await api.create('three', { _email: 'other@example.com' });
    expect(await api.update({ find_member_email: 'SHARED@example.com', plan: 'gold' })).toEqual(OK(2));
    expect((await api.profile('one'))?.get('plan')).toBe('gold');
    expect((await api.profile('two'))?.get('plan')).toBe('gold');
    expect((await api.profile('three'))?.get('plan')).toBeUndefined();
  });

  it('finds paid members by their billing or subscription id, and only paid ones', async () => {
    const api = await apiAccount(h());
    await api.insert({ login: 'payer', regType: 'P', billPc: 'paypal', billId: 'TX-100', billSubscr: 'I-SUB1' });
    await api.insert({ login: 'free', regType: 'F', billId: 'TX-100' });
    expect(await api.update({ find_member_ptrans: 'TX-100', status: 'S' })).toEqual(OK(1));
    expect(await api.update({ find_member_ptrans: 'I-SUB1', note: 'x' })).toEqual(OK(1));
    expect((await api.member('payer'))?.status).toBe('S');
    expect((await api.member('free'))?.status).toBe('A');
    expect(await api.update({ find_member_ptrans: 'TX-999', status: 'S' })).toEqual(ERROR('member not found'));
  });

  it('finds one member by id in any state, and with * every member that is not Deleted', async () => {
    const api = await apiAccount(h());
    const { id } = await api.create('byid');
    await api.create('other');
    await api.insert({ login: 'deleted', status: 'D' });
    await api.insert({ login: 'suspended', status: 'S' });
    expect(await api.update({ find_member_id: id, city: 'Lima' })).toEqual(OK(1));
    expect(await api.update({ find_member_id: '*', tier: 'all' })).toEqual(OK(3));
    expect((await api.profile('byid'))?.get('tier')).toBe('all');
    expect((await api.profile('suspended'))?.get('tier')).toBe('all');
    expect((await api.profile('deleted'))?.get('tier')).toBeUndefined();
  });

  it('needs exactly one selector, and a valid id', async () => {
    const api = await apiAccount(h());
    await api.create('sel');
    expect(await api.update({ status: 'S' })).toEqual(ERROR('exactly one selector is required'));
    expect(await api.update({ find_member_login: 'sel', find_member_id: '1', status: 'S' })).toEqual(ERROR('exactly one selector is required'));
    expect(await api.update({ find_member_login: '', status: 'S' })).toEqual(ERROR('exactly one selector is required'));
    for (const bad of ['abc', '0', '-1', '1.5', '**']) {
      expect(await api.update({ find_member_id: bad, status: 'S' }), bad).toEqual(ERROR('invalid parameter: find_member_id (a member id, or *)'));
    }
  });

  it('takes a find_member_id of at most 15 digits, the rule the OpenAPI document states', async () => {
    // Every id the store hands out (and the import takes) has at most 15 digits; a longer one
    // would be rounded by a JavaScript number, to some other member's id.
    const api = await apiAccount(h());
    const { id } = await api.create('fifteen');
    const refused = ERROR('invalid parameter: find_member_id (a member id, or *)');
    expect(await api.update({ find_member_id: id, city: 'Quito' })).toEqual(OK(1));
    expect(await api.update({ find_member_id: '999999999999999', status: 'S' })).toEqual(ERROR('member not found'));
    for (const bad of ['1000000000000000', '9007199254740993', `${id}${'0'.repeat(15)}`, `0${id}`]) {
      expect(await api.update({ find_member_id: bad, status: 'S' }), bad).toEqual(refused);
    }
    const document = (await h().request({ method: 'GET', url: '/api2/openapi.json' })).json;
    const { pattern } = document.paths['/api2/update/'].post.requestBody.content['application/x-www-form-urlencoded'].schema.properties.find_member_id;
    const documented = new RegExp(pattern, 'u');
    expect(['*', id, '999999999999999'].filter((value) => !documented.test(value))).toEqual([]);
    expect(['1000000000000000', '9007199254740993', '0', `0${id}`, '**'].filter((value) => documented.test(value))).toEqual([]);
  });

  it('answers "member not found" when nothing matches', async () => {
    const api = await apiAccount(h());
    expect(await api.update({ find_member_login: 'nobody', status: 'S' })).toEqual(ERROR('member not found'));
    expect(await api.update({ find_member_id: '*', status: 'S' })).toEqual(ERROR('member not found'));
    expect(await api.update({ find_member_id: '999999999', status: 'S' })).toEqual(ERROR('member not found'));
  });

  it('answers "nothing to change" when only a selector is sent', async () => {
    const api = await apiAccount(h());
    await api.create('idle');
    expect(await api.update({ find_member_login: 'idle' })).toEqual(ERROR('nothing to change'));
    expect(await api.update({ find_member_login: 'idle', exp_time: '5' })).toEqual(ERROR('nothing to change'));
  });

  it('changes the login, refusing a taken one and one for several members', async () => {
    const api = await apiAccount(h());
    await api.create('old-name');
    await api.create('taken');
    expect(await api.update({ find_member_login: 'old-name', login: 'New-Name' })).toEqual(OK(1));
    expect((await api.member('new-name'))?.login).toBe('New-Name');
    expect(await api.update({ find_member_login: 'new-name', login: 'TAKEN' })).toEqual(ERROR('login already taken'));
    expect(await api.update({ find_member_id: '*', login: 'everyone' })).toEqual(ERROR('login cannot be set on several members'));
    expect(await api.update({ find_member_login: 'taken', login: 'has space' })).toEqual(
      ERROR('invalid parameter: login (1 to 64 characters, no white space or control characters)'),
    );
    // The member keeps its own login with another case.
    expect(await api.update({ find_member_login: 'taken', login: 'TAKEN' })).toEqual(OK(1));
  });

  it('changes the password, with the account’s minimum', async () => {
    const api = await apiAccount(h(), { minPasswordLength: 10 });
    await api.create('pw', { _password: 'first-password' });
    expect(await api.update({ find_member_login: 'pw', password: 'short' })).toEqual(ERROR('invalid parameter: password (too short: at least 10 characters)'));
    expect(await api.update({ find_member_login: 'pw', password: 'second-password' })).toEqual(OK(1));
    expect((await api.login('pw', 'first-password')).result).toBe('FAIL');
    expect((await api.login('pw', 'second-password')).result).toBe('OK');
  });

  it('changes the e-mail, and sets and clears the member’s URLs', async () => {
    const api = await apiAccount(h(), { okUrl: '/default-ok' });
    await api.create('urls');
    expect(await api.update({ find_member_login: 'urls', email: 'New@Example.com', urlok: 'https://example.com/ok', urlfail: '/fail' })).toEqual(OK(1));
    expect(await api.member('urls')).toMatchObject({ email: 'New@Example.com', urlOk: 'https://example.com/ok', urlFail: '/fail' });
    expect((await api.login('urls')).ok_url).toBe('https://example.com/ok');
    expect(await api.update({ find_member_login: 'urls', urlok: '' })).toEqual(OK(1));
    expect((await api.login('urls')).ok_url).toBe('/default-ok');
    expect(await api.update({ find_member_login: 'urls', email: 'nope' })).toEqual(
      ERROR(
        'invalid parameter: email (one plain address: at most 254 characters, one @ with text on both sides, no white space, none of , ; : < > ( ) " \\ [ ])',
      ),
    );
    expect(await api.update({ find_member_login: 'urls', urlfail: 'javascript:x' })).toEqual(
      ERROR('invalid parameter: urlfail (an absolute http(s) URL or a path starting with /, at most 2048 characters, no backslash)'),
    );
  });

  it('moves a member from any state to any state (seed section 3, first three rows)', async () => {
    const api = await apiAccount(h());
    h().clock.set('2026-04-01T00:00:00Z');
    const names = { A: 'Active', S: 'Suspended', D: 'Deleted' } as const;
    for (const from of ['A', 'S', 'D'] as const) {
      for (const to of ['A', 'S', 'D'] as const) {
        const login = `m-${from}-${to}`;
        await api.insert({ login, status: from, regAt: Date.parse('2026-03-01T00:00:00Z') });
        expect(await api.update({ find_member_login: login, status: to }), login).toEqual(OK(1));
        const [listed] = (await api.list({ record: '{status}', login_full: login, ...(to === 'D' ? { status: 'D' } : {}) })).members;
        expect(listed, login).toEqual({ status: names[to] });
      }
    }
    // status=D records the deletion time (a member already deleted keeps its first one).
    expect((await api.member('m-A-D'))?.deletedAt).toBe(Date.parse('2026-04-01T00:00:00Z'));
    expect((await api.member('m-D-D'))?.deletedAt).toBe(Date.parse('2026-03-01T00:00:00Z'));
    expect((await api.member('m-D-A'))?.deletedAt).toBeNull();
    expect(await api.update({ find_member_login: 'm-A-A', status: 'X' })).toEqual(ERROR('invalid parameter: status (one of A S D, in either case)'));
  });

  it('restores a Deleted member with status=A: it logs in again and keeps its login', async () => {
    const api = await apiAccount(h());
    await api.create('phoenix');
    await api.update({ find_member_login: 'phoenix', status: 'D' });
    expect((await api.login('phoenix')).message).toBe('wrong login or password');
    expect(await api.update({ find_member_login: 'phoenix', status: 'A' })).toEqual(OK(1));
    expect((await api.login('phoenix')).result).toBe('OK');
  });

  it('sets a time expiration from now, in calendar periods, and clears it with N', async () => {
    const api = await apiAccount(h());
    await api.create('timed');
    h().clock.set('2026-01-31T09:00:00Z');
    expect(await api.update({ find_member_login: 'timed', is_exp_time: 'S', exp_time: '1', exp_time_type: 'M' })).toEqual(OK(1));
    expect((await api.member('timed'))?.timeExpiry).toEqual({ action: 'S', at: Date.parse('2026-02-28T09:00:00Z') });
    expect(await api.update({ find_member_login: 'timed', is_exp_time: 'D', exp_time: '90', exp_time_type: 'm' })).toEqual(OK(1));
    expect((await api.member('timed'))?.timeExpiry).toEqual({ action: 'D', at: Date.parse('2026-01-31T10:30:00Z') });
    expect(await api.update({ find_member_login: 'timed', is_exp_time: 'N' })).toEqual(OK(1));
    expect((await api.member('timed'))?.timeExpiry).toBeNull();
    const cases: Array<[Record<string, string>, string]> = [
      [{ is_exp_time: 'S', exp_time_type: 'D' }, 'missing parameter: exp_time'],
      [{ is_exp_time: 'S', exp_time: '2' }, 'missing parameter: exp_time_type'],
      [{ is_exp_time: 'S', exp_time: '2', exp_time_type: 'd' }, 'invalid parameter: exp_time_type (one of m h D M Y, in this case: m is minutes, M months)'],
      [{ is_exp_time: 'S', exp_time: 'x', exp_time_type: 'D' }, 'invalid parameter: exp_time (a whole number from 1 to 999999999)'],
      [{ is_exp_time: '1', exp_time: '2', exp_time_type: 'D' }, 'invalid parameter: is_exp_time (one of N S D, in either case)'],
      [{ is_exp_time: 'D', exp_time: '99999', exp_time_type: 'Y' }, 'invalid parameter: exp_time (the period ends after the year 9999)'],
    ];
    for (const [params, message] of cases) {
      expect(await api.update({ find_member_login: 'timed', ...params }), JSON.stringify(params)).toEqual(ERROR(message));
    }
  });

  it('suspends or deletes when the time set on update elapses (seed section 3)', async () => {
    const api = await apiAccount(h());
    await api.create('ts');
    await api.create('td');
    h().clock.set('2026-05-01T00:00:00Z');
    await api.update({ find_member_login: 'ts', is_exp_time: 'S', exp_time: '1', exp_time_type: 'h' });
    await api.update({ find_member_login: 'td', is_exp_time: 'D', exp_time: '1', exp_time_type: 'h' });
    h().clock.advance(60 * MINUTE);
    expect((await api.login('ts')).message).toBe('member suspended');
    expect((await api.login('td')).message).toBe('wrong login or password');
    expect(await api.logins({ login: 't' })).toEqual(['ts']);
    expect(await api.logins({ login: 't', status: 'S' })).toEqual(['ts']);
    expect(await api.logins({ login: 't', status: 'D' })).toEqual(['td']);
    // The sweep writes it down, dated at the instant it expired.
    await h().services.sweeper.sweep();
    expect((await api.member('td'))?.deletedAt).toBe(Date.parse('2026-05-01T01:00:00Z'));
  });

  it('sets a login allowance counted from now, and clears it with N', async () => {
    const api = await apiAccount(h());
    await api.create('ls');
    await api.create('ld');
    await api.login('ls');
    await api.login('ls');
    expect(await api.update({ find_member_login: 'ls', is_exp_logins: 'S', exp_logins: '2' })).toEqual(OK(1));
    expect(await api.update({ find_member_login: 'ld', is_exp_logins: 'D', exp_logins: '1' })).toEqual(OK(1));
    expect((await api.login('ls')).result).toBe('OK');
    expect((await api.login('ls')).result).toBe('OK');
    expect((await api.login('ls')).message).toBe('member suspended');
    expect((await api.login('ld')).result).toBe('OK');
    expect((await api.login('ld')).message).toBe('wrong login or password');
    expect((await api.member('ld'))?.status).toBe('D');
    await api.create('ln', { set_is_exp_logins: '1', set_exp_logins: '1' });
    expect(await api.update({ find_member_login: 'ln', is_exp_logins: 'N' })).toEqual(OK(1));
    for (let i = 0; i < 3; i++) expect((await api.login('ln')).result).toBe('OK');
    expect(await api.update({ find_member_login: 'ln', is_exp_logins: 'S' })).toEqual(ERROR('missing parameter: exp_logins'));
    expect(await api.update({ find_member_login: 'ln', is_exp_logins: 'S', exp_logins: '0' })).toEqual(
      ERROR('invalid parameter: exp_logins (a whole number from 1 to 999999999)'),
    );
    expect(await api.update({ find_member_login: 'ln', is_exp_logins: '2', exp_logins: '3' })).toEqual(
      ERROR('invalid parameter: is_exp_logins (one of N S D, in either case)'),
    );
  });

  it('re-activates a member whose time or allowance ran out when status=A is set', async () => {
    const api = await apiAccount(h());
    await api.create('spent', { set_is_exp_logins: '1', set_exp_logins: '1' });
    await api.login('spent');
    expect((await api.login('spent')).message).toBe('member suspended');
    await api.update({ find_member_login: 'spent', status: 'A' });
    expect((await api.login('spent')).result).toBe('OK');
    expect((await api.login('spent')).result).toBe('OK');

    h().clock.set('2026-06-01T00:00:00Z');
    await api.create('late', { set_is_exp_time: '1', set_exp_time: '1', set_exp_time_type: 'D' });
    h().clock.advance(2 * 86_400_000);
    expect((await api.login('late')).message).toBe('member suspended');
    await api.update({ find_member_login: 'late', status: 'A' });
    expect((await api.login('late')).result).toBe('OK');
  });

  it('lifts a lockout when status=A is set', async () => {
    const api = await apiAccount(h(), { lockout: { threshold: 2 } });
    await api.create('locked');
    await api.login('locked', 'wrong-1');
    await api.login('locked', 'wrong-2');
    expect((await api.login('locked')).result).toBe('FAIL');
    await api.update({ find_member_login: 'locked', status: 'A' });
    expect((await api.login('locked')).result).toBe('OK');
  });

  it('sets profile fields, deletes those named in pfdelete, and ignores names that are not there', async () => {
    const api = await apiAccount(h());
    await api.create('prof', { a: '1', b: '2', c: '3' });
    expect(await api.update({ find_member_login: 'prof', b: 'two', d: '4', pfdelete: ' a , c,, missing ' })).toEqual(OK(1));
    expect(await api.profile('prof')).toEqual(
      new Map([
        ['b', 'two'],
        ['d', '4'],
      ]),
    );
    // A field both deleted and set ends up set.
    expect(await api.update({ find_member_login: 'prof', pfdelete: 'b', b: 'again' })).toEqual(OK(1));
    expect((await api.profile('prof'))?.get('b')).toBe('again');
    expect(await api.update({ find_member_login: 'prof', pfdelete: 'b,d' })).toEqual(OK(1));
    expect(await api.profile('prof')).toEqual(new Map());
    for (const name of ['IP', 'reg_date', '_x', 'set_x', 'find_member_x', 'Login']) {
      expect(await api.update({ find_member_login: 'prof', [name]: 'v' }), name).toEqual(
        ERROR(`unknown parameter: ${name}${name === 'Login' ? ' (did you mean login?)' : ''}`),
      );
    }
    expect(await api.update({ find_member_login: 'prof', 'a b': 'v' })).toEqual(ERROR('invalid parameter: a b (1 to 64 of A-Z a-z 0-9 _ . -)'));
  });

  it('changes all matched members in one transaction, or none', async () => {
    const api = await apiAccount(h());
    await api.create('roomy', { _email: 'pair@example.com' });
    await api.create('crowded', { _email: 'pair@example.com', ...fields(100, 'f') });
    // The second member would get 101 fields: neither changes, not even the status.
    expect(await api.update({ find_member_email: 'pair@example.com', extra: 'x', status: 'S' })).toEqual(ERROR('too many profile fields'));
    expect((await api.profile('roomy'))?.get('extra')).toBeUndefined();
    expect((await api.member('roomy'))?.status).toBe('A');
    // A taken login undoes the profile change made in the same call.
    await api.create('solo');
    await api.create('other');
    expect(await api.update({ find_member_login: 'solo', city: 'Paris', login: 'other' })).toEqual(ERROR('login already taken'));
    expect((await api.profile('solo'))?.get('city')).toBeUndefined();
  });

  it('lets a member at the limit of fields change the ones it has, and refuses one more', async () => {
    const api = await apiAccount(h());
    await api.create('full', { _email: 'full@example.com', ...fields(100, 'f') });
    await api.create('held', { _email: 'full@example.com', f1: 'one', f2: 'one' });
    // Every member found holds the field set: no field is added (the count is not read again).
    expect(await api.update({ find_member_email: 'full@example.com', f1: 'changed' })).toEqual(OK(2));
    expect((await api.profile('full'))?.get('f1')).toBe('changed');
    expect((await api.profile('held'))?.get('f1')).toBe('changed');
    // A field it has with one it has not: the member at the limit would get 101.
    expect(await api.update({ find_member_login: 'full', f1: 'again', extra: 'x' })).toEqual(ERROR('too many profile fields'));
    expect((await api.profile('full'))?.get('f1')).toBe('changed');
    expect((await api.profile('full'))?.size).toBe(100);
    // Both hold f2: both change, nothing is counted.
    expect(await api.update({ find_member_email: 'full@example.com', f2: 'two' })).toEqual(OK(1 + 1));
    // A field only the member below the limit lacks: it is counted, and fits.
    expect(await api.update({ find_member_login: 'held', f2: 'two', g: 'new' })).toEqual(OK(1));
    expect((await api.profile('held'))?.size).toBe(3);
  });

  it('never loses one concurrent update’s fields to another', async () => {
    const api = await apiAccount(h());
    await api.create('busy');
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => api.update({ find_member_login: 'busy', [`f${i}`]: `v${i}` })));
    expect(replies.every((r) => r.result === 'OK')).toBe(true);
    expect((await api.profile('busy'))?.size).toBe(20);
  });

  it('changes nothing in another account', async () => {
    const owner = await apiAccount(h());
    const other = await apiAccount(h());
    await owner.create('mine');
    expect(await other.update({ find_member_login: 'mine', status: 'D' })).toEqual(ERROR('member not found'));
    expect(await other.update({ find_member_id: String((await owner.member('mine'))!.id), status: 'D' })).toEqual(ERROR('member not found'));
    expect(await other.update({ find_member_id: '*', status: 'D' })).toEqual(ERROR('member not found'));
    expect((await owner.member('mine'))?.status).toBe('A');
  });

  it('refuses a wrong key before anything else', async () => {
    const api = await apiAccount(h());
    const reply = await h().post('/api2/update/', { user: api.user, api_key: 'wrong', find_member_id: '*', status: 'D' });
    expect(reply.body).toBe('{"result":"ERROR","message":"wrong api key"}');
  });
});
