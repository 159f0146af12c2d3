import { expect, it } from 'vitest';
import { describeEachEngineApp } from '../support/app.js';
import { apiAccount } from '../support/member-api.js';

describeEachEngineApp('API keys with less power', (h) => {
  it('lets a read key only list, and a login key only send IP to /login/', async () => {
    const api = await apiAccount(h());
    await api.create('scoped');
    const issue = async (scope: 'read' | 'login') => {
      const issued = await h().services.accounts.addKey(api.user, `${scope}-key`, { scope });
      if (issued.kind !== 'issued') throw new Error(issued.kind);
      return issued.apiKey;
    };
    const reader = await issue('read');
    const loginOnly = await issue('login');
    const refused = { result: 'ERROR', message: 'api key not allowed for this call' };
    const call = (path: string, apiKey: string, params: Record<string, string>) => h().post(path, { user: api.user, api_key: apiKey, ...params });

    expect((await call('/api2/list/', reader, {})).json.members_total).toBe(1);
    expect((await call('/api2/create/', reader, { _login: 'nope', _email: 'n@example.com' })).json).toEqual(refused);
    expect((await call('/api2/update/', reader, { find_member_login: 'scoped', email: 'x@example.com' })).json).toEqual(refused);
    expect((await call('/api2/login/', reader, { login: 'scoped', password: 'correct-horse', IP: '192.0.2.1' })).json).toEqual(refused);

    expect((await call('/api2/login/', loginOnly, { login: 'scoped', password: 'correct-horse', IP: '192.0.2.1' })).json.result).toBe('OK');
    expect((await call('/api2/list/', loginOnly, {})).json).toEqual(refused);
    expect((await call('/api2/create/', loginOnly, { _login: 'nope', _email: 'n@example.com' })).json).toEqual(refused);

    // The account's full key still does everything; nothing was created by the refused calls.
    expect(await api.logins()).toEqual(['scoped']);
    expect((await api.member('scoped'))?.email).toBe('scoped@example.com');
  });

  it('records when each key was last used', async () => {
    const api = await apiAccount(h());
    await api.list();
    const keys = await h().services.accounts.keys(api.user);
    // Written off the request's path: wait for it.
    await expect.poll(async () => (await h().services.accounts.keys(api.user))?.keys[0]?.lastUsedAt ?? null).not.toBeNull();
    expect(keys?.keys).toHaveLength(1);
  });
});
