/**
 * The console's operators: added by the command line with a one-time link where they set a
 * password, signed in with argon2id and the members' lockout rules, and kept signed in by
 * sessions in the store (so that every server shares them) with an idle and an absolute
 * lifetime. Tokens (links, sessions) are random, handed out once, and kept as SHA-256 digests:
 * a copy of the store signs nobody in.
 */
import { createHash, randomBytes } from 'node:crypto';
import { DEFAULT_LOCKOUT } from '../accounts/account.js';
import type { Account } from '../accounts/account.js';
import type { AccountStore } from '../accounts/account-store.js';
import { checkChosenPassword } from '../auth/password-policy.js';
import { isOverlongPassword, MAX_PASSWORD_LENGTH, type PasswordHasher } from '../auth/passwords.js';
import type { Clock } from '../common/clock.js';
import { roleAllows, roleOn, type Operator, type OperatorStore, type Role } from './operator.js';
import { newRecoveryCodes, newSecret, recoveryDigest, secretUri, stepOf } from './two-step.js';

/** A set-up link is valid this long. */
export const LINK_LIFETIME_MS = 24 * 3600_000;
/** A session ends after this long without a request… */
export const SESSION_IDLE_MS = 30 * 60_000;
/** …and this long after sign-in, whatever happens. */
export const SESSION_LIFETIME_MS = 12 * 3600_000;
/** A session's last use is written at most this often (not on every request). */
const TOUCH_EVERY_MS = 60_000;
/** An operator's password: at least this many characters (NIST SP 800-63B asks 8; operators hold every member's data). */
export const OPERATOR_MIN_PASSWORD = 12;

export type SignInOutcome =
  | { kind: 'signed-in'; token: string; operator: Operator }
  /** The password was right; the token is a pending session's, good for the second step only. */
  | { kind: 'second-step'; token: string }
  | { kind: 'refused' };
/** A pending session (password right, second step awaited) ends this long after the password. */
export const SECOND_STEP_MS = 5 * 60_000;
export type PasswordOutcome = { kind: 'set'; operator: Operator } | { kind: 'invalid-link' } | { kind: 'weak'; message: string };

/** Where a set-up link opens: its token in the query, the form's page. */
export const SETUP_PATH = '/admin/setup';
const SIGN_IN_PATH = '/admin/sign-in';
const setupPath = (token: string) => `${SETUP_PATH}?${new URLSearchParams({ token })}`;

export type InviteOutcome =
  /** A mail is on its way: a new operator's set-up link, or word of the account to one that exists. */
  | { kind: 'mailed' }
  /** The account sends no mail, and the operator is new: its set-up link, for the owner to hand over. */
  | { kind: 'link'; link: string; expiresAt: number }
  /** The account sends no mail, and the operator existed: it has the role, and signs in as it always does. */
  | { kind: 'granted' }
  /** The operator was on the account already: its role is set. */
  | { kind: 'role-set' };
/** What an owner's "send a new sign-in link" did. */
export type LinkOutcome =
  | { kind: 'mailed' }
  /** A link was mailed to it a moment ago: none again yet. */
  | { kind: 'just-mailed' }
  /** The account sends no mail: the link, for the owner to hand over (the operator is this account's alone). */
  | { kind: 'link'; link: string; expiresAt: number }
  | { kind: 'not-here' }
  | { kind: 'yourself' }
  /** It belongs to other accounts too: only it (forgot your password) or the server's administrator may have a link. */
  | { kind: 'other-accounts' };

/** A link asked for by "forgot your password" or an owner lives an hour. */
export const RECOVERY_LINK_MS = 3600_000;
/** One such mail per operator every 5 minutes. */
const LINK_MAIL_INTERVAL_MS = 5 * 60_000;

/** The id no operator has: an unknown e-mail's failure is counted under it (a statement that changes nothing). */
const NO_OPERATOR = 0;
/** The console's sign-ins take their turns at the hashing gate as an account of their own would. */
const CONSOLE_SHARE = 'console';

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');
const newToken = () => randomBytes(32).toString('base64url');

export class OperatorsService {
  /** A hash of nothing anyone knows: an unknown e-mail costs the same verification as a known one. */
  private decoy: Promise<string> | undefined;
  /** When each operator was last mailed a new link (forgotten, sendLink): a mailbox is not flooded. */
  private readonly linkMailedAt = new Map<number, number>();

  constructor(
    private readonly store: OperatorStore,
    private readonly accounts: AccountStore,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    /** The console's address, for the links handed out on a page. */
    private readonly consoleUrl: () => string,
    /**
     * The server's configured public address (PUBLIC_URL), the only base of a link in a mail:
     * never the address a request named (its Host header is the sender's to choose).
     */
    private readonly mailLinkBase: () => string | undefined = () => undefined,
  ) {}

  /**
   * An owner's invitation from the console. A new operator gets a set-up link by mail (through
   * the account's mail settings), shown to the owner only when the account sends no mail; an
   * operator that exists gets no link at all (it has a password, or its own link, or asks the
   * server's administrator: a link handed to someone else would open every account it has),
   * but word by mail that it has this account now. With mail, the answer is the same whether
   * the address was known or not.
   */
  async invite(inviter: Operator, email: string, account: Account, role: Role): Promise<InviteOutcome> {
    const now = this.clock();
    const token = newToken();
    const expiresAt = now + LINK_LIFETIME_MS;
    const mailOn = account.settings.smtpUrl !== '';
    const vars = { role, invited_by: inviter.email };
    const invited = await this.store.invite({
      email,
      accountId: account.id,
      role,
      now,
      link: { digest: digest(token), expiresAt },
      toNew: mailOn
        ? { kind: 'operator-invite', vars: { ...vars, setup_url: this.mailLink(setupPath(token)), setup_expires_at: String(expiresAt) } }
        : undefined,
      toExisting: mailOn ? { kind: 'operator-access', vars: { ...vars, sign_in_url: this.mailLink(SIGN_IN_PATH) } } : undefined,
    });
    if (!invited.isNew && !invited.newToAccount) return { kind: 'role-set' };
    if (mailOn) return { kind: 'mailed' };
    if (invited.isNew) return { kind: 'link', link: `${this.consoleUrl()}${setupPath(token)}`, expiresAt };
    return { kind: 'granted' };
  }

  /**
   * A link in a mail to an operator: on the configured public address; without one, the path,
   * saying so (a reader who knows the server's address can still follow it).
   */
  mailLink(path: string): string {
    const base = this.mailLinkBase();
    return base ? `${base}${path}` : `${path} (this server's public address is not configured: its administrator sets PUBLIC_URL)`;
  }

  /** Who hears of a registration that waits for approval (the account's editors and owners), and the link to the queue. */
  async approvalNotice(account: Account): Promise<{ operators: string[]; approveUrl: string }> {
    const operators = (await this.store.list())
      .filter((operator) => operator.accounts.some((grant) => grant.accountId === account.id && roleAllows(grant.role, 'editor')))
      .map((operator) => operator.email);
    return { operators, approveUrl: this.mailLink(`/admin/accounts/${encodeURIComponent(account.name)}/registrations`) };
  }

  /**
   * Adds the operator (or a role on one more account). An operator without a password gets a
   * one-time link to set one (the only live one: a link handed out before ends); one that has
   * a password keeps it and gets no link, which could replace it (`reset` is for that).
   */
  async add(email: string, accountName: string, role: Role): Promise<{ operator: Operator; link?: string; expiresAt?: number } | { kind: 'no-account' }> {
    const account = await this.accounts.findAccountByName(accountName);
    if (!account) return { kind: 'no-account' };
    const id = await this.store.grant(email, account.id, role, this.clock());
    const operator = (await this.store.byId(id))!;
    if (operator.hasPassword) return { operator };
    return { operator, ...(await this.link(id)) };
  }

  /**
   * Makes the operator of this address (made when new) one of the server's administrators, or
   * (`on` false) no longer; one without a password gets a set-up link, as `add` gives. The
   * command line's (`operator administrator`): the console offers it to nobody.
   */
  async setAdministrator(email: string, on: boolean): Promise<{ operator: Operator; link?: string; expiresAt?: number } | { kind: 'not-found' }> {
    const id = await this.store.setAdministrator(email, on, this.clock());
    const operator = id === undefined ? undefined : await this.store.byId(id);
    if (!operator) return { kind: 'not-found' };
    if (!on || operator.hasPassword) return { operator };
    return { operator, ...(await this.link(id!)) };
  }

  /**
   * "Forgot your password?" on the console's sign-in: a short-lived set-up link, mailed to the
   * operator through the mail settings of one of its accounts that sends mail. Its password
   * stays until the link is used (so nobody can lock an operator out by asking), and its second
   * step stays on. Nothing is said to the asker: the sign-in page answers the same whatever
   * the address. At most one mail per operator every LINK_MAIL_INTERVAL_MS (this server's count).
   */
  async forgotten(email: string): Promise<void> {
    const operator = await this.store.byEmail(email);
    if (!operator) return;
    for (const grant of operator.accounts) {
      const account = await this.accounts.findAccountById(grant.accountId);
      if (account && account.settings.smtpUrl !== '') {
        await this.mailNewLink(operator, account);
        return;
      }
    }
  }

  /**
   * An owner's "send a new sign-in link" for an operator of its account. Only for one that
   * belongs to no other account: a link handed out opens every account of its operator. Mailed
   * when the account sends mail; otherwise shown to the owner, who hands it over.
   */
  async sendLink(owner: Operator, email: string, account: Account): Promise<LinkOutcome> {
    const operator = await this.store.byEmail(email);
    if (!operator || !operator.accounts.some((grant) => grant.accountId === account.id)) return { kind: 'not-here' };
    if (operator.id === owner.id) return { kind: 'yourself' };
    if (operator.accounts.some((grant) => grant.accountId !== account.id)) return { kind: 'other-accounts' };
    if (account.settings.smtpUrl !== '') return (await this.mailNewLink(operator, account)) ? { kind: 'mailed' } : { kind: 'just-mailed' };
    return { kind: 'link', ...(await this.link(operator.id, RECOVERY_LINK_MS)) };
  }

  /** Mails the operator a new set-up link through the account's mail settings; false when one went a moment ago. */
  private async mailNewLink(operator: Operator, account: Account): Promise<boolean> {
    const now = this.clock();
    const last = this.linkMailedAt.get(operator.id);
    if (last !== undefined && now - last < LINK_MAIL_INTERVAL_MS) return false;
    if (this.linkMailedAt.size > 10_000) this.linkMailedAt.clear();
    this.linkMailedAt.set(operator.id, now);
    const token = newToken();
    const expiresAt = now + RECOVERY_LINK_MS;
    await this.store.addLink(digest(token), operator.id, expiresAt, {
      accountId: account.id,
      kind: 'operator-link',
      vars: { setup_url: this.mailLink(setupPath(token)), setup_expires_at: String(expiresAt) },
      now,
    });
    return true;
  }

  /** A new one-time link; the password is cleared, and every session and earlier link ended (a reset after a leak). */
  async reset(email: string): Promise<{ operator: Operator; link: string; expiresAt: number } | undefined> {
    const operator = await this.store.byEmail(email);
    if (!operator) return undefined;
    // A lost phone is a reason for a reset too: the second step goes with the password.
    await this.store.replacePassword(operator.id, null);
    await this.store.disableTwoStep(operator.id);
    return { operator: { ...operator, hasPassword: false, twoStep: false }, ...(await this.link(operator.id)) };
  }

  /** The link carries its token in the query (`token` is masked in every log), never in the path. */
  private async link(operatorId: number, lifetime = LINK_LIFETIME_MS): Promise<{ link: string; expiresAt: number }> {
    const token = newToken();
    const expiresAt = this.clock() + lifetime;
    await this.store.addLink(digest(token), operatorId, expiresAt);
    return { link: `${this.consoleUrl()}${setupPath(token)}`, expiresAt };
  }

  list(): Promise<Operator[]> {
    return this.store.list();
  }

  find(email: string): Promise<Operator | undefined> {
    return this.store.byEmail(email);
  }

  /** Removes an operator, or its access to one account; false when there is no such operator or account. */
  async remove(email: string, accountName?: string): Promise<boolean> {
    const operator = await this.store.byEmail(email);
    if (!operator) return false;
    if (accountName === undefined) {
      await this.store.remove(operator.id);
      return true;
    }
    const account = await this.accounts.findAccountByName(accountName);
    if (!account) return false;
    await this.store.remove(operator.id, account.id);
    return true;
  }

  /** The operator a set-up link is for, while it is valid (the page that shows the form). */
  async linkFor(token: string): Promise<Operator | undefined> {
    const id = await this.store.linkOperator(digest(token), this.clock());
    return id === undefined ? undefined : this.store.byId(id);
  }

  /** Sets the password through a one-time link, which is used up with every other link, and every session, of the operator. */
  async setPassword(token: string, password: string): Promise<PasswordOutcome> {
    const weak = passwordProblem(password);
    if (weak) return { kind: 'weak', message: weak };
    // Hashed before the link is used up: a link is taken, and the password set, in one transaction.
    const id = await this.store.setPasswordByLink(digest(token), await this.hasher.hash(password, { account: CONSOLE_SHARE, client: '' }), this.clock());
    if (id === undefined) return { kind: 'invalid-link' };
    return { kind: 'set', operator: (await this.store.byId(id))! };
  }

  /**
   * Signs in. An unknown e-mail, a wrong password and a locked operator get the same answer
   * after the same work: one verification (against a decoy hash when there is no password)
   * and one failure counted (under no operator, id 0, when there is none to count). A
   * password longer than any can be is refused before it is normalised or hashed, alike for all.
   */
  async signIn(email: string, password: string, client = ''): Promise<SignInOutcome> {
    if (isOverlongPassword(password)) return { kind: 'refused' };
    const now = this.clock();
    const share = { account: CONSOLE_SHARE, client };
    const credentials = await this.store.credentials(email);
    const hash = credentials?.passwordHash ?? (await (this.decoy ??= this.hasher.hash(newToken())));
    const passwordOk = (await this.hasher.verify(hash, password, share)) && credentials?.passwordHash != null;
    const locked = credentials !== undefined && credentials.lockedUntil > now;
    if (!credentials || !passwordOk || locked) {
      // A right password while locked is not a failure, but it costs the same.
      await this.store.countFailure(credentials && !passwordOk ? credentials.id : NO_OPERATOR, now, DEFAULT_LOCKOUT);
      return { kind: 'refused' };
    }
    const operator = (await this.store.byId(credentials.id))!;
    // Whether a lock began while the password was being verified (failures sent beside it,
    // verified first) is decided by the statement that takes the password: refused then, and
    // the lock stays. The failures are cleared by the second step, not before it.
    if (!(await this.store.acceptPassword(credentials.id, this.clock(), !operator.twoStep))) return { kind: 'refused' };
    const token = newToken();
    if (operator.twoStep) {
      // One pending session at a time (each would be more guesses).
      await this.store.endPendingSessions(credentials.id);
      await this.store.addSession(digest(token), credentials.id, now, true);
      return { kind: 'second-step', token };
    }
    await this.store.addSession(digest(token), credentials.id, now);
    return { kind: 'signed-in', token, operator };
  }

  /** The operator of a pending session, while its second step may still be given. */
  async pendingOperator(token: string): Promise<Operator | undefined> {
    if (!token) return undefined;
    const session = await this.store.session(digest(token));
    if (!session?.pending || this.clock() - session.createdAt > SECOND_STEP_MS) return undefined;
    return this.store.byId(session.operatorId);
  }

  /**
   * The second step of a sign-in: a code from the authenticator app (each taken once) or a
   * recovery code (each used once). Right, the pending session ends and a full one starts
   * under a new token; wrong, it counts as a failed sign-in (the same lockout).
   */
  async secondStep(token: string, code: string): Promise<SignInOutcome> {
    const operator = await this.pendingOperator(token);
    if (!operator) return { kind: 'refused' };
    const now = this.clock();
    // Locked (by wrong passwords or codes): no code is even looked at.
    if (((await this.store.credentials(operator.email))?.lockedUntil ?? 0) > now) {
      await this.store.endPendingSessions(operator.id);
      return { kind: 'refused' };
    }
    if (!(await this.codeTaken(operator.id, code, now))) {
      await this.countWrongCode(operator.id, now);
      return { kind: 'refused' };
    }
    // Locked since it was looked at (wrong codes beside this one): refused, the lock kept.
    if (!(await this.store.acceptPassword(operator.id, this.clock(), true))) {
      await this.store.endPendingSessions(operator.id);
      return { kind: 'refused' };
    }
    const full = newToken();
    if (!(await this.store.completeSession(digest(token), digest(full), now))) return { kind: 'refused' };
    return { kind: 'signed-in', token: full, operator };
  }

  /** A wrong code counts as a failed sign-in; locked, the operator's pending sessions end with it. */
  private async countWrongCode(id: number, now: number): Promise<void> {
    if ((await this.store.countFailure(id, now, DEFAULT_LOCKOUT)) > 0) await this.store.endPendingSessions(id);
  }

  /** Whether the code is the operator's: a TOTP code not taken before, or an unused recovery code (used up by this). */
  private async codeTaken(id: number, code: string, now: number): Promise<boolean> {
    const { secret } = await this.store.twoStep(id);
    if (!secret || code.length > 64) return false;
    const step = stepOf(secret, code, now);
    if (step !== undefined) return this.store.takeStep(id, step);
    return this.store.useRecoveryCode(id, recoveryDigest(code), now);
  }

  /**
   * Starts the operator's enrolment: a new secret at every visit of its page (one seen by
   * someone else before is worth nothing), kept aside until a code from it confirms it.
   */
  async startTwoStep(operator: Operator): Promise<{ secret: string; uri: string }> {
    const secret = newSecret();
    await this.store.setTwoStepPending(operator.id, secret);
    return this.enrolment(operator, secret);
  }

  /** The secret being enrolled, if any, with its link (the page again after a wrong code). */
  async pendingTwoStep(operator: Operator): Promise<{ secret: string; uri: string } | undefined> {
    const { pending } = await this.store.twoStep(operator.id);
    return pending ? this.enrolment(operator, pending) : undefined;
  }

  private enrolment(operator: Operator, secret: string): { secret: string; uri: string } {
    return { secret, uri: secretUri(operator.email, secret) };
  }

  /**
   * Confirms the enrolment with a code from the app: the second step is on, every other
   * session of the operator ends (one opened with the password alone), and the recovery codes
   * (shown once) are answered.
   */
  async enableTwoStep(operator: Operator, code: string, sessionToken: string): Promise<{ codes: string[] } | undefined> {
    const { pending } = await this.store.twoStep(operator.id);
    const now = this.clock();
    const step = pending ? stepOf(pending, code, now) : undefined;
    if (!pending || step === undefined) return undefined;
    const recovery = newRecoveryCodes();
    await this.store.enableTwoStep(operator.id, pending, step, recovery.digests);
    await this.store.endOtherSessions(operator.id, digest(sessionToken));
    return { codes: recovery.codes };
  }

  /**
   * Turns the second step off, with a code (or a recovery code; a wrong one counts as a failed
   * sign-in); refused while an account of the operator requires it.
   */
  async disableTwoStep(operator: Operator, code: string, sessionToken: string): Promise<'off' | 'wrong-code' | { required: string }> {
    const required = await this.requiringAccount(operator);
    if (required) return { required };
    const now = this.clock();
    if (!(await this.codeTaken(operator.id, code, now))) {
      await this.countWrongCode(operator.id, now);
      return 'wrong-code';
    }
    await this.store.disableTwoStep(operator.id);
    await this.store.endOtherSessions(operator.id, digest(sessionToken));
    return 'off';
  }

  recoveryCodesLeft(operator: Operator): Promise<number> {
    return this.store.recoveryCodesLeft(operator.id);
  }

  /** The first of the operator's accounts that requires a second step, if any. */
  async requiringAccount(operator: Operator): Promise<string | undefined> {
    for (const grant of operator.accounts) {
      const account = await this.accounts.findAccountByName(grant.account);
      if (account?.settings.operatorsTwoStep === 'required') return account.name;
    }
    return undefined;
  }

  /** The signed-in operator of a session token, or undefined once it ended or expired. */
  async session(token: string): Promise<Operator | undefined> {
    if (!token) return undefined;
    const now = this.clock();
    const key = digest(token);
    const session = await this.store.session(key);
    // A pending session opens nothing but its second step.
    if (!session || session.pending) return undefined;
    if (now - session.seenAt > SESSION_IDLE_MS || now - session.createdAt > SESSION_LIFETIME_MS) {
      await this.store.endSession(key);
      return undefined;
    }
    if (now - session.seenAt > TOUCH_EVERY_MS) await this.store.touchSession(key, now);
    return this.store.byId(session.operatorId);
  }

  async signOut(token: string): Promise<void> {
    await this.store.endSession(digest(token));
  }

  async signOutEverywhere(operatorId: number): Promise<void> {
    await this.store.endSessions(operatorId);
  }
}

/** The operator's role on the account, when it has at least `needed`. */
export function accessTo(operator: Operator, accountName: string, needed: Role = 'viewer'): { role: Role } | undefined {
  const role = roleOn(operator, accountName);
  return role && roleAllows(role, needed) ? { role } : undefined;
}

/** The members' rules for a chosen password (length, not a common one), with a higher minimum. */
function passwordProblem(password: string): string | undefined {
  switch (checkChosenPassword(password, { minLength: OPERATOR_MIN_PASSWORD, refuseCommon: true })) {
    case 'too-short':
      return `The password needs at least ${OPERATOR_MIN_PASSWORD} characters.`;
    case 'too-long':
      return `The password is too long: at most ${MAX_PASSWORD_LENGTH} characters.`;
    case 'too-common':
      return 'This password is one of the most common ones, which attackers try first: choose another.';
    case 'ok':
      return undefined;
  }
}
