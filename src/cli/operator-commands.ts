/**
 * The console's operators on the command line: `operator add | list | remove | reset |
 * administrator`. `add` and `administrator` (for an operator without a password) and `reset`
 * print a one-time link (valid 24 h) where
 * the operator sets a password; a new link ends the operator's earlier ones. The link is on
 * PUBLIC_URL; without it, on HOST and PORT as this command sees them, with a note that says so.
 */
import { Option, type Command } from 'commander';
import { ROLES, type Operator, type Role } from '../operators/operator.js';
import { writeLines } from '../common/terminal-text.js';
import { CommandError, linkBase, noAccount, print, printList, type WithServices } from './cli-support.js';

const iso = (instant: number) => new Date(instant).toISOString();

function describe(operator: Operator) {
  return {
    email: operator.email,
    password_set: operator.hasPassword,
    two_step: operator.twoStep,
    administrator: operator.administrator,
    accounts: operator.accounts.map((grant) => ({ account: grant.account, role: grant.role })),
  };
}

function checkEmail(email: string): void {
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) throw new CommandError(`email: not an e-mail address: "${email}"`);
}

export function registerOperatorCommands(program: Command, withServices: WithServices): void {
  const operator = program.command('operator').description('the people who may sign in to the console (/admin/)');

  operator
    .command('add <email>')
    .description('give an operator (made when new) a role on an account; one without a password gets a one-time link (24 h) to set it')
    .requiredOption('--account <name>', 'the account it may see')
    .addOption(new Option('--role <role>', 'viewers read, editors change members, owners also settings and keys').choices([...ROLES]).default('editor'))
    .option('--json', 'print the outcome as JSON')
    .action(async (email: string, options: { account: string; role: Role; json?: boolean }) => {
      checkEmail(email);
      const { outcome, note } = await withServices(async (s, config) => ({
        outcome: await s.operators.add(email, options.account, options.role),
        note: linkBase(config).assumed,
      }));
      if ('kind' in outcome) throw noAccount(options.account);
      // An operator who already has a password keeps it, and gets no link that could replace it.
      if (outcome.link === undefined || outcome.expiresAt === undefined) {
        print(
          {
            ...describe(outcome.operator),
            link: null,
            note: 'this operator has a password already and signs in with it; `operator reset` clears it and prints a new link',
          },
          options.json,
        );
      } else {
        print({ ...describe(outcome.operator), link: outcome.link, link_expires_at: iso(outcome.expiresAt), ...(note ? { note } : {}) }, options.json);
      }
    });

  operator
    .command('list')
    .description('every operator, with its accounts and roles')
    .option('--json', 'print them as JSON')
    .action(async (options: { json?: boolean }) => {
      const operators = await withServices((s) => s.operators.list());
      printList(
        operators.map((o) => ({
          email: o.email,
          password: o.hasPassword ? 'set' : 'not set',
          'two-step': o.twoStep ? 'on' : 'off',
          accounts: o.administrator ? 'all:administrator' : o.accounts.map((g) => `${g.account}:${g.role}`).join(',') || '-',
        })),
        {
          json: options.json,
          jsonValue: { operators: operators.map(describe) },
          empty: 'no operators (`member-api operator add EMAIL --account NAME` makes one)',
        },
      );
    });

  operator
    .command('remove <email>')
    .description('remove an operator (its sessions and set-up links end), or only its access to one account (its set-up links end)')
    .option('--account <name>', 'only this account')
    .action(async (email: string, options: { account?: string }) => {
      if (!(await withServices((s) => s.operators.remove(email, options.account))))
        throw new CommandError(options.account ? `no operator "${email}" or no account "${options.account}"` : `no operator "${email}"`);
      writeLines(process.stdout, [`removed ${email}${options.account ? ` from ${options.account}` : ''}`]);
    });

  operator
    .command('administrator <email>')
    .description(
      'make an operator (made when new) one of the server’s administrators: an owner of every account, who may also create accounts and set page layouts in the console; one without a password gets a one-time link (24 h)',
    )
    .option('--off', 'no longer an administrator (its own accounts and roles stay)')
    .option('--json', 'print the outcome as JSON')
    .action(async (email: string, options: { off?: boolean; json?: boolean }) => {
      checkEmail(email);
      const { outcome, note } = await withServices(async (s, config) => ({
        outcome: await s.operators.setAdministrator(email, !options.off),
        note: linkBase(config).assumed,
      }));
      if ('kind' in outcome) throw new CommandError(`no operator "${email}"`);
      const link = outcome.link === undefined ? { link: null } : { link: outcome.link, link_expires_at: iso(outcome.expiresAt!), ...(note ? { note } : {}) };
      print({ ...describe(outcome.operator), ...link }, options.json);
    });

  operator
    .command('reset <email>')
    .description('clear an operator’s password and end its sessions and earlier links; prints a new one-time link')
    .option('--json', 'print the outcome as JSON')
    .action(async (email: string, options: { json?: boolean }) => {
      const { outcome, note } = await withServices(async (s, config) => ({ outcome: await s.operators.reset(email), note: linkBase(config).assumed }));
      if (!outcome) throw new CommandError(`no operator "${email}"`);
      print({ ...describe(outcome.operator), link: outcome.link, link_expires_at: iso(outcome.expiresAt), ...(note ? { note } : {}) }, options.json);
    });
}
