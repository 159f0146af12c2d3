/**
 * The account's API keys in the console (owners), as `account add-key`, `rotate-key` and
 * `revoke-key` handle them, through the same service: a new key is shown once, on the page
 * that answers the form (never a redirect's target, so a reload cannot show it again); a
 * rotation keeps the old key working for a grace period; a revocation is asked first.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { KEY_SCOPES, type Account, type ApiKey } from '../../accounts/account.js';
import type { KeyIssue } from '../../accounts/accounts-service.js';
import { onAccount } from '../access.js';
import type { ConsoleDeps } from '../deps.js';
import { keysPath } from '../paths.js';
import { doneNotice, formOf, send, seeOther } from '../replies.js';
import { t, type Chrome } from '../views/layout.js';
import { confirmRevokePage, keysPage } from '../views/keys.js';

export async function keysSection(scope: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  async function show(reply: FastifyReply, chrome: Chrome, account: Account, status = 200, issued?: { key: ApiKey; apiKey: string }) {
    const keys = (await deps.accounts.keys(account.name))?.keys ?? [];
    return send(reply, status, keysPage(chrome, account, keys, issued));
  }

  /** A key issued (shown once, on this answer), or the page with the reason it was not. */
  function answer(reply: FastifyReply, chrome: Chrome, account: Account, issue: KeyIssue) {
    if (issue.kind === 'issued') return show(reply, { ...chrome, notice: { kind: 'ok', text: t('keyIssued', { name: issue.key.name }) } }, account, 200, issue);
    const text = issue.kind === 'invalid' ? `${issue.setting}: ${issue.reason}.` : t('noSuchAccount');
    return show(reply, { ...chrome, notice: { kind: 'error', text } }, account, 400);
  }

  scope.get('/', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    return show(reply, { operator: seen.operator, account: seen.account.name, notice: doneNotice(request) }, seen.account);
  });

  scope.post('/add', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const form = formOf(request);
    const scope = KEY_SCOPES.find((candidate) => candidate === form.scope) ?? 'all';
    const expires = form.expires?.trim() ? form.expires.trim() : undefined;
    const issue = await deps.accounts.addKey(seen.account.name, (form.name ?? '').trim(), { scope, expires });
    return answer(reply, { operator: seen.operator, account: seen.account.name }, seen.account, issue);
  });

  scope.post('/rotate', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const form = formOf(request);
    const grace = form.grace?.trim() ? form.grace.trim() : undefined;
    const issue = await deps.accounts.rotateKey(seen.account.name, { keyName: form.name ?? '', grace });
    return answer(reply, { operator: seen.operator, account: seen.account.name }, seen.account, issue);
  });

  scope.post('/revoke', { config: { access: 'owner' } }, async (request, reply) => {
    const seen = onAccount(request);
    const form = formOf(request);
    const chrome: Chrome = { operator: seen.operator, account: seen.account.name };
    const name = form.name ?? '';
    // Asked first: the integrations that use it stop at once.
    if (form.confirm !== '1') return send(reply, 200, confirmRevokePage(chrome, seen.account, name));
    const revoked = await deps.accounts.revokeKey(seen.account.name, name);
    if (revoked.kind !== 'revoked') return show(reply, { ...chrome, notice: { kind: 'error', text: t('keyNoSuch', { name }) } }, seen.account, 404);
    return seeOther(reply, `${keysPath(seen.account.name)}?done=key-revoked`);
  });
}
