/** The console over HTTP, for the tests: operators signed in through their set-up link, forms posted as a browser posts them. */
import { expect } from 'vitest';
import type { Harness, Reply } from './app.js';

export const PASSWORD = 'a-long-operator-password';
export const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** Adds an operator with a role on the account, and answers its set-up link's token. */
export async function addOperator(h: Harness, email: string, account: string, role: 'viewer' | 'editor' | 'owner' = 'editor'): Promise<string> {
  const added = await h.services.operators.add(email, account, role);
  if ('kind' in added || added.link === undefined) throw new Error('no link');
  const link = new URL(added.link);
  expect(link.pathname).toBe('/admin/setup');
  return link.searchParams.get('token')!;
}

export const form = (h: Harness, url: string, params: Record<string, string>, cookie?: string): Promise<Reply> =>
  h.request({ url, payload: new URLSearchParams(params).toString(), headers: { ...FORM, ...(cookie ? { cookie } : {}) } });

/** Sets the operator's password through its link, signs it in, and answers its session cookie. */
export async function signedIn(h: Harness, email: string, account: string, role: 'viewer' | 'editor' | 'owner' = 'editor'): Promise<string> {
  const token = await addOperator(h, email, account, role);
  // Setting the password signs the operator in; a sign-in of its own works as well.
  expect((await form(h, '/admin/setup', { token, password: PASSWORD, confirm: PASSWORD })).headers.location).toBe('/admin/');
  const reply = await form(h, '/admin/sign-in', { email, password: PASSWORD });
  expect(reply.status).toBe(303);
  const cookie = String(reply.headers['set-cookie']).split(';')[0]!;
  expect(cookie).toMatch(/^console_session=./);
  return cookie;
}
