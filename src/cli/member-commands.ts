/**
 * `member-api member …`: what support staff need before the console exists — find a member,
 * see everything about it (state, lock, recent logins), unlock it, give it a new password,
 * suspend or activate it. Every change goes through the same services as the API's, so the
 * rules (and, once they exist, the events) are the same whichever door it came in by.
 */
import { Command, InvalidArgumentError } from 'commander';
import type { Account } from '../accounts/account.js';
import { hashFormat } from '../auth/legacy-hashes.js';
import { generatePassword } from '../auth/passwords.js';
import type { Services } from '../compose.js';
import type { LoginEvent } from '../members/login-records.js';
import { MEMBER_FIELDS, STATUS, valueOf } from '../members/member-fields.js';
import type { Member, MemberStatus } from '../members/member.js';
import type { UpdateMembersOutcome } from '../members/members-service.js';
import type { MemberFilters } from '../members/member-store.js';
import { parseRecordTemplate } from '../members/record-template.js';
import { accountNamed, CommandError, cutNote, print, printList, type WithServices } from './cli-support.js';

interface Common {
  readonly account: string;
  readonly json?: boolean;
}

/** The most a --limit may ask for. */
const MAX_LIMIT = 9999;

function positive(value: string): number {
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_LIMIT}`);
  return Number(value);
}

async function memberNamed(services: Services, account: Account, login: string) {
  const found = await services.members.findOne(account, login);
  if (!found) throw new CommandError(`no member "${login}" in account "${account.name}"`);
  return found;
}

const iso = (instant: number | null | undefined) => (instant === null || instant === undefined ? null : new Date(instant).toISOString());

/** A member as the portable format writes it (the table of member fields), without its hash. */
function fieldsOf(member: Member): Record<string, string | null> {
  const fields: Record<string, string | null> = {};
  for (const field of MEMBER_FIELDS) {
    // The hash is shown by its kind; the status by `status` (as it is now) below.
    if (!field.file || field.file.name === 'password_hash' || field.file.name === 'status') continue;
    const value = valueOf(member, field);
    fields[field.file.name] = value === null || value === undefined ? null : field.type.encode(value);
  }
  return fields;
}

function describeLogin(event: LoginEvent) {
  return { at: iso(event.at), outcome: event.outcome, ip: event.ip, login: event.login };
}

function refusal(outcome: Exclude<UpdateMembersOutcome, { kind: 'updated' }>): string {
  switch (outcome.kind) {
    case 'not-found':
      return 'no such member';
    case 'over-quota':
      return 'the account is over its storage quota';
    default:
      return `refused: ${outcome.kind}`;
  }
}

export function registerMemberCommands(program: Command, withServices: WithServices): void {
  const member = program.command('member').description('find, show and help one member (for support staff; the same rules as the API)');
  const command = (spec: string, description: string) =>
    member.command(spec).description(description).requiredOption('--account <name>', 'the account the member belongs to').option('--json', 'print JSON');

  command('find <text>', 'members whose login or e-mail contains TEXT (case-insensitive; Deleted ones too), by id')
    .option('--limit <n>', 'at most this many', positive, 20)
    .action(async (text: string, options: Common & { limit: number }) => {
      const { rows, total } = await withServices(async (s) => {
        const account = await accountNamed(s, options.account);
        const record = parseRecordTemplate('{id}{login}{email}{status}{reg_time}')!;
        const byId = new Map<string, Record<string, string>>();
        /** The /list/ filters, in every state: without a status a list leaves Deleted members out, so they are asked for apart. Answers how many match. */
        const read = async (filters: MemberFilters, limit: number | null) => {
          let matching = 0;
          for (const status of [undefined, 'D'] as const) {
            const listing = s.members.list(account, { record, filters: status ? { ...filters, status } : filters, limit });
            const chunks: string[] = [];
            for await (const chunk of listing) chunks.push(chunk);
            for (const row of JSON.parse(`[${chunks.filter((c) => c !== '').join(',')}]`) as Array<Record<string, string>>) byId.set(row.id!, row);
            matching += listing.total;
          }
          return matching;
        };
        // The first N by id of either list are among the first N by id of each; the members
        // both match are counted once (a list of them alone, whose rows are not read).
        const byLogin = await read({ loginContains: text }, options.limit);
        const byEmail = await read({ emailContains: text }, options.limit);
        const both = await read({ loginContains: text, emailContains: text }, 0);
        const sorted = [...byId.values()].sort((a, b) => Number(a.id) - Number(b.id));
        return { rows: sorted.slice(0, options.limit), total: byLogin + byEmail - both };
      });
      printList(
        rows.map((row) => ({ id: row.id, login: row.login, email: row.email, status: row.status, registered: row.reg_time })),
        {
          json: options.json,
          jsonValue: rows,
          empty: `no member's login or e-mail contains "${text}"`,
          cut: cutNote(rows.length, total, 'members', { which: 'first', maxLimit: MAX_LIMIT }),
        },
      );
    });

  command('show <login>', 'every field of a member, its state, its lock and its last logins').action(async (login: string, options: Common) => {
    const shown = await withServices(async (s) => {
      const account = await accountNamed(s, options.account);
      const { member, profile, state } = await memberNamed(s, account, login);
      const lock = await s.logins.lockoutOf(account, member.id);
      const logins = await s.logins.recentLogins(account, member.id, 5);
      const expired =
        state.status !== member.status ? ` (stored ${STATUS.name(member.status)}; its time expiration fell due ${iso(member.timeExpiry?.at)})` : '';
      const { id, login: shownLogin, email, ...rest } = fieldsOf(member);
      return {
        id,
        login: shownLogin,
        email,
        status: `${STATUS.name(state.status)}${expired}`,
        ...rest,
        password: `${hashFormat(member.passwordHash) ?? 'unknown'} hash`,
        locked: lock.lockedUntil === null ? 'no' : `until ${iso(lock.lockedUntil)} (member-api member unlock)`,
        failed_logins: lock.counts.map((count) => ({
          scope: count.scope === '*' ? 'all addresses' : count.scope,
          failures: count.failures,
          last: iso(count.lastFailureAt),
        })),
        profile: Object.fromEntries(profile),
        last_logins: logins.map(describeLogin),
      };
    });
    print(shown, options.json);
  });

  command('logins <login>', 'the recorded login attempts of a member (those sent with an IP), newest first')
    .option('--limit <n>', 'at most this many', positive, 20)
    .action(async (login: string, options: Common & { limit: number }) => {
      // One more than asked, to tell whether the list was cut.
      const found = await withServices(async (s) => {
        const account = await accountNamed(s, options.account);
        const { member } = await memberNamed(s, account, login);
        return (await s.logins.recentLogins(account, member.id, options.limit + 1)).map(describeLogin);
      });
      const events = found.slice(0, options.limit);
      printList(
        events.map(({ login: _login, ...event }) => event),
        {
          json: options.json,
          jsonValue: events,
          empty: `no recorded login attempts for "${login}" (attempts are recorded when the integrator sends IP)`,
          cut: found.length > options.limit ? cutNote(options.limit, 'more', 'login attempts', { which: 'newest', maxLimit: MAX_LIMIT }) : undefined,
        },
      );
    });

  command('unlock <login>', 'end a member’s lockout (forget its failed logins)').action(async (login: string, options: Common) => {
    const forgotten = await withServices(async (s) => {
      const account = await accountNamed(s, options.account);
      const { member } = await memberNamed(s, account, login);
      return s.logins.unlock(account, member.id);
    });
    print({ login, unlocked: true, failure_counts: forgotten }, options.json);
  });

  command('reset-password <login>', 'give a member a new generated password (printed once)').action(async (login: string, options: Common) => {
    const password = generatePassword();
    await change(withServices, options.account, login, { password });
    print({ login, password }, options.json);
  });

  for (const [name, status, description] of [
    ['suspend', 'S', 'suspend a member (its logins fail with "suspended")'],
    ['activate', 'A', 'make a member Active again (a time expiration that fell due still holds: set a new one with /update/)'],
  ] as const) {
    command(`${name} <login>`, description).action(async (login: string, options: Common) => {
      const state = await change(withServices, options.account, login, { status });
      print({ login, status: STATUS.name(state) }, options.json);
    });
  }
}

/** One member's change through the members service (as /update/ with find_login makes it); answers its state after. */
async function change(
  withServices: WithServices,
  accountName: string,
  login: string,
  changes: { password?: string; status?: MemberStatus },
): Promise<MemberStatus> {
  return withServices(async (s) => {
    const account = await accountNamed(s, accountName);
    await memberNamed(s, account, login);
    const outcome = await s.members.update(
      account,
      { selector: { by: 'login', login }, ...changes, deleteFields: [], setFields: new Map() },
      { actor: 'operator' },
    );
    if (outcome.kind !== 'updated') throw new CommandError(refusal(outcome));
    return (await memberNamed(s, account, login)).state.status;
  });
}
