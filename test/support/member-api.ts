import { expect } from 'vitest';
import type { SettingsPatch } from '../../src/accounts/account-rules.js';
import type { NewMember } from '../../src/members/member.js';
import type { Harness } from './app.js';
import { insertMember } from './factories.js';

/**
 * A fresh account with helpers that speak the API as an integrator does: every call is a
 * form POST through the app, answers are parsed JSON.
 */
export async function apiAccount(h: Harness, settings: SettingsPatch = {}) {
  const { user, apiKey, account } = await h.newAccount(settings);
  const call = async (path: string, params: Record<string, string> | Array<[string, string]>) => {
    const pairs = Array.isArray(params) ? params : Object.entries(params);
    return (await h.post(path, [['user', user], ['api_key', apiKey], ...pairs])).json;
  };
  return {
    user,
    apiKey,
    account,
    /** Creates a member through /create/ and returns the answer. */
    async create(login: string, params: Record<string, string> = {}) {
      const reply = await call('/api2/create/', { _login: login, _email: `${login}@example.com`, _password: 'correct-horse', ...params });
      expect(reply.result, JSON.stringify(reply)).toBe('OK');
      return reply;
    },
    /** Puts a member straight into the store (paid, imported, deleted…), as the import tool will. */
    insert: (overrides: Partial<NewMember>) => insertMember(h.store, account.id, overrides),
    update: (params: Record<string, string> | Array<[string, string]>) => call('/api2/update/', params),
    list: (params: Record<string, string> | Array<[string, string]> = {}) => call('/api2/list/', params),
    /** A page of the change feed. */
    events: (params: Record<string, string> | Array<[string, string]> = {}) => call('/api2/events/', params),
    login: async (login: string, password = 'correct-horse') => (await h.post('/api2/login/', { user, login, password })).json,
    member: (login: string) => h.store.members.findMemberByLogin(account.id, login),
    profile: async (login: string) => {
      const member = await h.store.members.findMemberByLogin(account.id, login);
      return member ? h.store.members.findProfile(account.id, member.id) : undefined;
    },
    /** Logins of the listed members, in order. */
    logins: async (params: Record<string, string> | Array<[string, string]> = {}) => {
      const pairs = Array.isArray(params) ? params : Object.entries(params);
      const reply = await call('/api2/list/', [['record', '{login}'], ...pairs]);
      expect(reply.members, JSON.stringify(reply)).toBeDefined();
      return (reply.members as Array<{ login: string }>).map((m) => m.login);
    },
  };
}
