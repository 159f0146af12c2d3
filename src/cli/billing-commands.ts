/**
 * Paid memberships on the command line: `billing set | show | import-stripe | comp` and
 * `plan add | list | remove` (docs/paid-memberships.md). Secrets are taken, never printed:
 * `billing show` masks them.
 */
import { parseDay } from '../members/lifecycle.js';
import type { Command } from 'commander';
import { formatDuration, type BillingSettings, type Plan } from '../billing/billing.js';
import { masked, readPlan, readSettings } from '../billing/billing-input.js';
import { writeLines } from '../common/terminal-text.js';
import { accountNamed, CommandError, print, printList, tableLines, type WithServices } from './cli-support.js';

export function describeSettings(settings: BillingSettings) {
  return {
    stripe_secret_key: masked(settings.stripeSecretKey) || '(not set)',
    stripe_webhook_secret: masked(settings.stripeWebhookSecret) || '(not set)',
    paypal_receiver: settings.paypalReceiver || '(not set)',
    on_refund: settings.onRefund,
  };
}

export function describePlan(plan: Plan) {
  return {
    name: plan.name,
    title: plan.title,
    stripe_price: plan.stripePrice ?? '',
    paypal_item: plan.paypalItem ?? '',
    price: plan.amount ? `${plan.amount} ${plan.currency ?? ''}`.trim() : '',
    grace: formatDuration(plan.graceSeconds),
    fields: [...plan.fields].map(([name, value]) => `${name}=${value}`).join(' '),
  };
}

/** The first problem of a reading, as the command line says it: one line, the option named. */
function firstProblem(errors: Record<string, string>): CommandError {
  const [parameter, reason] = Object.entries(errors)[0]!;
  return new CommandError(`${parameter === 'name' ? 'NAME' : `--${parameter}`}: ${reason}`);
}

export function registerBillingCommands(program: Command, withServices: WithServices): void {
  const billing = program.command('billing').description('paid memberships: an account’s payment providers, its subscribers');

  billing
    .command('set <account>')
    .description('connect the account to Stripe and/or PayPal (secrets are kept by the server only, never shown again)')
    .option('--stripe-secret-key <key>', 'the Stripe API secret key (sk_live_… or a restricted rk_…); "" disconnects')
    .option('--stripe-webhook-secret <secret>', 'the signing secret of the Stripe webhook endpoint (whsec_…)')
    .option('--paypal-receiver <email>', 'the PayPal account’s address that IPN notifications name as receiver_email; "" disconnects')
    .option('--on-refund <rule>', 'what a full refund does: suspend (default) or keep')
    .option('--json', 'print the settings as JSON')
    .action(async (name: string, options: { stripeSecretKey?: string; stripeWebhookSecret?: string; paypalReceiver?: string; onRefund?: string; json?: boolean }) => {
      const settings = await withServices(async (s) => {
        const account = await accountNamed(s, name);
        const read = readSettings(await s.billing.settings(account), options);
        if ('errors' in read) throw firstProblem(read.errors);
        await s.billing.setSettings(account, read.settings);
        return read.settings;
      });
      print(describeSettings(settings), options.json);
    });

  billing
    .command('show <account>')
    .description('the account’s payment providers (secrets masked) and its plans')
    .option('--json', 'print them as JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const { settings, plans } = await withServices(async (s) => {
        const account = await accountNamed(s, name);
        return { settings: await s.billing.settings(account), plans: await s.billing.plans(account) };
      });
      if (options.json) print({ ...describeSettings(settings), plans: plans.map(describePlan) }, true);
      else writeLines(process.stdout, [...tableLines([describeSettings(settings)]), '', ...(plans.length ? tableLines(plans.map(describePlan)) : ['no plans yet: member-api plan add'])]);
    });

  billing
    .command('import-stripe <account>')
    .description('link the account’s Stripe subscriptions to its members by address (or make them, mailed a link to choose a password)')
    .option('--dry-run', 'report what would happen, changing nothing')
    .option('--json', 'print the report as JSON')
    .action(async (name: string, options: { dryRun?: boolean; json?: boolean }) => {
      const report = await withServices(async (s) => s.billing.importStripe(await accountNamed(s, name), options.dryRun === true));
      printList(report, { json: options.json, jsonValue: { dry_run: options.dryRun === true, subscriptions: report }, empty: 'no subscriptions in this Stripe account' });
    });

  billing
    .command('comp <account> <login>')
    .description('grant a member access without payment until a date (reg_type Manual; suspended then)')
    .requiredOption('--until <date>', 'YYYY-MM-DD: access to the end of that day in the account’s time zone')
    .action(async (name: string, login: string, options: { until: string }) => {
      const day = parseDay(options.until);
      if (!day) throw new CommandError(`--until: a day as YYYY-MM-DD, got "${options.until}"`);
      const until = await withServices(async (s) => {
        const account = await accountNamed(s, name);
        const until = s.billing.endOfDay(account, day);
        if (until <= s.clock()) throw new CommandError('--until: a day after today');
        const found = await s.members.findOne(account, login);
        if (!found) throw new CommandError(`no member "${login}" in account "${name}"`);
        await s.billing.comp(account, found.member.id, until, { actor: 'operator', name: 'command line' });
        return until;
      });
      writeLines(process.stdout, [`${login}: access until ${new Date(until).toISOString()} (Manual)`]);
    });

  const plan = program.command('plan').description('what a payment grants: access until the paid period’s end plus a grace, and profile fields');

  plan
    .command('add <account> <name>')
    .description('declare a plan: the Stripe price and/or PayPal item that pay for it')
    .option('--stripe-price <price>', 'the Stripe price id (price_…)')
    .option('--paypal-item <item>', 'the item_number of the PayPal button')
    .option('--title <text>', 'the name members see (default: the plan’s name)')
    .option('--amount <amount>', 'the price (9.99), checked against PayPal payments')
    .option('--currency <code>', 'its currency (USD), checked against PayPal payments')
    .option('--grace <duration>', 'access after the paid period’s end, for a retried renewal: 3d, 12h, 0', '0')
    .option('--field <name=value>', 'a profile field set while the plan lasts (repeatable)', (value: string, all: string[]) => [...all, value], [])
    .action(
      async (
        name: string,
        planName: string,
        options: { stripePrice?: string; paypalItem?: string; title?: string; amount?: string; currency?: string; grace: string; field: string[] },
      ) => {
        const read = readPlan({ name: planName, ...options, fields: options.field });
        if ('errors' in read) throw firstProblem(read.errors);
        const added = await withServices(async (s) =>
          s.billing.addPlan(await accountNamed(s, name), read.plan),
        );
        if (!added) throw new CommandError(`account "${name}" has a plan "${planName}" already (plan remove it first)`);
        writeLines(process.stdout, [`plan ${planName} added`]);
      },
    );

  plan
    .command('list <account>')
    .description('the account’s plans')
    .option('--json', 'print them as JSON')
    .action(async (name: string, options: { json?: boolean }) => {
      const plans = (await withServices(async (s) => s.billing.plans(await accountNamed(s, name)))).map(describePlan);
      printList(plans, { json: options.json, jsonValue: { plans }, empty: `no plans in account "${name}"` });
    });

  plan
    .command('remove <account> <name>')
    .description('remove a plan (its members keep what they were granted; new payments for it grant nothing more)')
    .action(async (name: string, planName: string) => {
      const removed = await withServices(async (s) => s.billing.removePlan(await accountNamed(s, name), planName));
      if (!removed) throw new CommandError(`no plan "${planName}" in account "${name}"`);
      writeLines(process.stdout, [`plan ${planName} removed`]);
    });
}
