/**
 * Who may open a console route, decided once per request by a `preHandler` hook: a route says
 * what it needs in its options (`{ config: { access: 'editor' } }`: that role or more on the
 * URL's account; `'signed-in'`: any operator; `'administrator'`: one of the server's
 * administrators, who are owners of every account), and the hook finds the operator from its
 * session cookie, the account of the URL and the operator's role on it, and refuses: to the
 * sign-in page without a session, 404 for an account that is not the operator's (as an
 * unknown one: an operator learns nothing of others' accounts), 403 for a role too low, the
 * second step's set-up for an account that requires one. The route then reads what the hook
 * found with `signedIn(request)` or `onAccount(request)`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account.js';
import type { AccountsService } from '../accounts/accounts-service.js';
import { roleAllows, type Operator, type Role } from '../operators/operator.js';
import { accessTo, type OperatorsService } from '../operators/operators-service.js';
import { membersPath } from './paths.js';
import { send, seeOther } from './replies.js';
import { messagePage, t } from './views/layout.js';

/** What a console route needs: a role on the URL's account, only to be signed in, or to be an administrator (on the URL's account when it names one). */
export type Access = Role | 'signed-in' | 'administrator';

/** What the hook found for a route that needs a role on an account. */
export interface OnAccount {
  readonly operator: Operator;
  readonly account: Account;
  readonly role: Role;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The least a console route needs (access.ts); a route without it is open (sign-in, set-up, the stylesheet). */
    access?: Access;
  }
  interface FastifyRequest {
    /** The operator (and, for an account's route, its account and role) the access hook found. */
    consoleAccess: { readonly operator: Operator; readonly account?: Account; readonly role?: Role } | null;
  }
}

/** The signed-in operator of a route that needs one. */
export function signedIn(request: FastifyRequest): Operator {
  if (!request.consoleAccess) throw new Error(`${request.routeOptions.url}: no access checked (a route option config.access is missing)`);
  return request.consoleAccess.operator;
}

/** The operator, account and role of a route that needs a role on its account. */
export function onAccount(request: FastifyRequest): OnAccount {
  const found = request.consoleAccess;
  if (!found?.account || !found.role) throw new Error(`${request.routeOptions.url}: no account checked (config.access must be a role)`);
  return { operator: found.operator, account: found.account, role: found.role };
}

export interface AccessDeps {
  readonly operators: OperatorsService;
  readonly accounts: AccountsService;
  /** The request's session token (its cookie). */
  sessionToken(request: FastifyRequest): string;
  /** Clears the session cookie (a session that ended). */
  clearCookie(reply: FastifyReply): void;
  /** Where an operator without a second step goes for an account that requires one. */
  readonly twoStepPath: string;
}

/** Adds the access hook to the console's scope (its routes, and its sections' routes). */
export function registerAccess(scope: FastifyInstance, deps: AccessDeps): void {
  scope.decorateRequest('consoleAccess', null);
  scope.addHook('preHandler', async (request, reply) => {
    const needed = request.routeOptions.config.access;
    if (needed === undefined) return;
    const operator = await deps.operators.session(deps.sessionToken(request));
    if (!operator) {
      deps.clearCookie(reply);
      return seeOther(reply, '/admin/sign-in');
    }
    const name = (request.params as { account?: string }).account;
    if (needed === 'administrator' && !operator.administrator)
      return send(reply, 403, messagePage(t('notAllowed'), t('administratorsOnly'), { operator, account: name }, { href: '/admin/', text: t('yourAccounts') }));
    if (needed === 'signed-in' || name === undefined) {
      request.consoleAccess = { operator };
      return;
    }
    const grant = accessTo(operator, name);
    const account = grant && (await deps.accounts.find(name));
    if (!grant || !account)
      return send(reply, 404, messagePage(t('notFound'), t('noAccountOfYours'), { operator }, { href: '/admin/', text: t('yourAccounts') }));
    if (needed !== 'administrator' && !roleAllows(grant.role, needed))
      return send(
        reply,
        403,
        messagePage(
          t('notAllowed'),
          t('roleTooLow', { account: account.name, role: grant.role, needed }),
          { operator, account: account.name },
          { href: membersPath(account.name), text: t('backToTheMembers') },
        ),
      );
    // An account that requires a second step opens to its operators that have one.
    if (account.settings.operatorsTwoStep === 'required' && !operator.twoStep)
      return seeOther(reply, `${deps.twoStepPath}?${new URLSearchParams({ required: account.name })}`);
    request.consoleAccess = { operator, account, role: grant.role };
  });
}
