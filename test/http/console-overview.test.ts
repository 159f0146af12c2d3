/**
 * The console's overview on both engines: registrations and logins counted as they happen, by
 * day in the account's time zone; members by status from the counters; the members expiring
 * in the next 7 days; the last failed logins; and the page closed to other accounts' operators.
 */
import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { signedIn } from '../support/console.js';
import { apiAccount } from '../support/member-api.js';

/** The figures of the page's day-by-day table, by day. */
function dayRows(body: string): Map<string, number[]> {
  const rows = new Map<string, number[]>();
  for (const match of body.matchAll(/<tr><td>(\d{4}-\d{2}-\d{2})<\/td><td>([\d,]+)<\/td><td>([\d,]+)<\/td><td>([\d,]+)<\/td><td>([\d,]+)<\/td><\/tr>/g))
    rows.set(
      match[1]!,
      match.slice(2, 6).map((n) => Number(n.replaceAll(',', ''))),
    );
  return rows;
}

describeEachEngineApp('the console’s overview', (h) => {
  it('counts registrations and logins per day in the account’s zone, with the members by status, the expiring ones and the failed logins', async () => {
    // Auckland is 12 hours ahead in September: 13:00 UTC there is already the next day.
    const api = await apiAccount(h(), { timeZone: 'Pacific/Auckland', lockout: { threshold: 2 } });
    h().clock.set('2026-09-10T13:00:00Z');
    await api.create('early');
    h().clock.set('2026-09-15T09:00:00Z');
    await api.create('ann', { set_is_exp_time: '1', set_exp_time: '3', set_exp_time_type: 'D' });
    await api.create('bob', { set_is_exp_time: '2', set_exp_time: '10', set_exp_time_type: 'D' });
    h().clock.set('2026-09-15T13:00:00Z');
    await api.create('cyd');
    expect((await api.update({ find_member_login: 'cyd', status: 'S' })).result).toBe('OK');
    // Logins: two OK, one wrong password, then locked (threshold 2), each with an address.
    const login = (name: string, password: string) =>
      h().post('/api2/login/', { user: api.user, api_key: api.apiKey, login: name, password, IP: '203.0.113.9' });
    expect((await login('ann', 'correct-horse')).json.result).toBe('OK');
    expect((await login('early', 'correct-horse')).json.result).toBe('OK');
    await login('bob', 'wrong-horse');
    await login('bob', 'wrong-horse');
    await login('bob', 'correct-horse');
    // A suspended member's right password is a failed login too.
    await login('cyd', 'correct-horse');

    const cookie = await signedIn(h(), `viewer-${api.user}@example.com`, api.user, 'viewer');
    const page = await h().request({ method: 'GET', url: `/admin/accounts/${api.user}/overview`, headers: { cookie } });
    expect(page.status).toBe(200);
    const rows = dayRows(page.body);
    // 30 days, today (the 16th in Auckland) the last.
    expect(rows.size).toBe(30);
    expect([...rows.keys()].sort().at(-1)).toBe('2026-09-16');
    expect([...rows.keys()].sort()[0]).toBe('2026-08-18');
    expect(rows.get('2026-09-11')).toEqual([1, 0, 0, 0]);
    expect(rows.get('2026-09-15')).toEqual([2, 0, 0, 0]);
    // Registered, OK, failed, locked.
    expect(rows.get('2026-09-16')).toEqual([1, 2, 3, 1]);
    // Members by status, each a link to the list of that status.
    expect(page.body).toMatch(/href="\/admin\/accounts\/[^"]+\/members\?status=A"><span class="figure">3<\/span>/);
    expect(page.body).toMatch(/href="\/admin\/accounts\/[^"]+\/members\?status=S"><span class="figure">1<\/span>/);
    // Ann's expiration falls due in 3 days; Bob's in 10 is not shown.
    expect(page.body).toContain('Expiring in the next 7 days: 1</h2>');
    expect(page.body).toContain('>ann</a>');
    expect(page.body).not.toContain('>bob</a><br>');
    // The failed logins, newest first, with their address and why.
    const failed = page.body.slice(page.body.indexOf('Last failed logins'));
    expect(failed.match(/<td>[^<]*<\/td><td>(?:<a [^>]*>)?(\w+)(?:<\/a>)?<\/td><td>203\.0\.113\.9<\/td><td>([^<]+)<\/td>/g)).toHaveLength(4);
    expect(failed.indexOf('suspended')).toBeLessThan(failed.indexOf('locked'));
    expect(failed).toContain('wrong login or password');
    // The charts are drawn on the server: SVG, no script.
    expect(page.body).toContain('<svg viewBox=');
    expect(page.body).not.toContain('<script');

    // The members page links to it; another account's operator is told there is no such account.
    const members = await h().request({ method: 'GET', url: `/admin/accounts/${api.user}/members`, headers: { cookie } });
    expect(members.body).toContain(`href="/admin/accounts/${api.user}/overview"`);
    const other = await apiAccount(h());
    const stranger = await signedIn(h(), `stranger-${other.user}@example.com`, other.user, 'owner');
    expect((await h().request({ method: 'GET', url: `/admin/accounts/${api.user}/overview`, headers: { cookie: stranger } })).status).toBe(404);
    h().clock.reset();
  });

  it('counts the expiring members only so far, and forgets an account’s counts with the account', async () => {
    const api = await apiAccount(h());
    h().clock.set('2026-10-01T00:00:00Z');
    await api.create('soon', { set_is_exp_time: '1', set_exp_time: '2', set_exp_time_type: 'D' });
    const overview = await h().services.overview.of(api.account);
    expect(overview.expiring.count).toBe(1);
    expect(overview.expiring.members.map((m) => [m.login, m.action, new Date(m.expiresAt).toISOString()])).toEqual([['soon', 'S', '2026-10-03T00:00:00.000Z']]);
    expect(overview.days.at(-1)).toEqual({ day: '2026-10-01', registered: 1, loginOk: 0, loginFailed: 0, loginLocked: 0 });
    expect(await h().store.overview.activitySince(api.account.id, 0)).toHaveLength(1);
    await h().services.accounts.delete(api.user);
    expect(await h().store.overview.activitySince(api.account.id, 0)).toEqual([]);
    h().clock.reset();
  });
});
