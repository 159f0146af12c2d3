/**
 * Webhooks on the command line: `webhook add | list | remove | enable | test | deliveries |
 * redeliver`. The signing secret is printed once, by `add`. A receiver is named by its id
 * or, when it has one, its name (`add --name crm`): an argument of digits alone is an id.
 */
import type { Command } from 'commander';
import type { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from '../webhooks/webhook.js';
import type { Account } from '../accounts/account.js';
import type { Services } from '../compose.js';
import { writeLines } from '../common/terminal-text.js';
import { accountNamed, CommandError, cutNote, print, printList, tableLines, type WithServices } from './cli-support.js';

const iso = (instant: number | null) => (instant === null ? null : new Date(instant).toISOString());

function describeEndpoint(endpoint: WebhookEndpoint) {
  return {
    id: endpoint.id,
    name: endpoint.name,
    url: endpoint.url,
    events: endpoint.types?.join(',') ?? 'all',
    created_at: iso(endpoint.createdAt),
    enabled: endpoint.disabledAt === null,
    disabled_at: iso(endpoint.disabledAt),
    disabled_reason: endpoint.disabledReason,
  };
}

function describeAttempt(attempt: WebhookAttempt) {
  return { at: iso(attempt.at), status: attempt.statusCode, duration_ms: attempt.durationMs, error: attempt.error };
}

function describeDelivery(delivery: WebhookDelivery & { attemptsMade: WebhookAttempt[] }) {
  return {
    id: delivery.id,
    event: String(delivery.eventId),
    state: delivery.state,
    attempts: delivery.attempts,
    next_at: delivery.state === 'pending' ? iso(delivery.nextAt) : null,
    delivered_at: iso(delivery.deliveredAt),
    last_error: delivery.lastError,
    attempt_log: delivery.attemptsMade.map(describeAttempt),
  };
}

/** The deliveries for people: one table of the deliveries, then one of every attempt, by delivery. */
function deliveryLines(deliveries: ReadonlyArray<ReturnType<typeof describeDelivery>>): string[] {
  const attempts = deliveries.flatMap((delivery) => delivery.attempt_log.map((attempt) => ({ delivery: delivery.id, ...attempt })));
  return [
    ...tableLines(deliveries.map(({ attempt_log: _log, ...delivery }) => delivery)),
    '',
    ...(attempts.length === 0 ? ['attempts: none yet'] : ['attempts:', ...tableLines(attempts).map((line) => `  ${line}`)]),
  ];
}

const whole = (name: string) => (value: string) => {
  if (!/^[1-9]\d{0,14}$/.test(value)) throw new CommandError(`${name} must be a whole number, got "${value}"`);
  return Number(value);
};

/** The account's receiver an argument names: digits alone are an id, anything else a name. */
async function endpointNamed(services: Services, account: Account, reference: string): Promise<number | undefined> {
  if (/^\d+$/.test(reference)) return whole('id')(reference);
  return (await services.webhooks.endpoints.named(account, reference))?.id;
}

/** Runs an endpoint operation of an account; refuses with one line when the account has no such endpoint. */
async function onEndpoint<T>(
  withServices: WithServices,
  accountName: string,
  reference: string,
  operation: (s: Services, account: Account, id: number) => Promise<T | false | undefined>,
): Promise<T> {
  const outcome = await withServices(async (s) => {
    const account = await accountNamed(s, accountName);
    const id = await endpointNamed(s, account, reference);
    return id === undefined ? undefined : operation(s, account, id);
  });
  if (outcome === false || outcome === undefined)
    throw new CommandError(`no webhook ${/^\d+$/.test(reference) ? reference : `named "${reference}"`} in account "${accountName}"`);
  return outcome;
}

export function registerWebhookCommands(program: Command, withServices: WithServices): void {
  const webhook = program
    .command('webhook')
    .description('signed webhooks (Standard Webhooks) of an account’s events; a receiver is named by its id or its name');

  webhook
    .command('add')
    .description('add a receiver: prints its id and its signing secret (shown this once)')
    .requiredOption('--account <name>', 'the account whose events it receives')
    .requiredOption('--url <url>', 'the receiver (http or https, on a public address)')
    .option('--name <name>', 'a name for it, unique in the account, usable wherever its id is: 1 to 64 of letters, digits, . _ - (not digits alone)')
    .option('--events <types>', 'only these event types, comma-separated (default: all)')
    .option('--json', 'print the outcome as JSON')
    .action(async (options: { account: string; url: string; name?: string; events?: string; json?: boolean }) => {
      const types = options.events
        ?.split(',')
        .map((type) => type.trim())
        .filter((type) => type !== '');
      const outcome = await withServices(async (s) => s.webhooks.endpoints.add(await accountNamed(s, options.account), options.url, types, options.name));
      if (outcome.kind === 'refused') throw new CommandError(`--${outcome.parameter}: ${outcome.reason}`);
      const { endpoint } = outcome;
      print({ id: endpoint.id, name: endpoint.name, secret: endpoint.secret, url: endpoint.url, events: endpoint.types?.join(',') ?? 'all' }, options.json);
      if (!options.json) writeLines(process.stderr, ['keep the secret: it is shown only now (receivers verify each delivery with it)']);
    });

  webhook
    .command('list')
    .description('an account’s receivers')
    .requiredOption('--account <name>', 'the account')
    .option('--json', 'print them as JSON')
    .action(async (options: { account: string; json?: boolean }) => {
      const endpoints = (await withServices(async (s) => s.webhooks.endpoints.list(await accountNamed(s, options.account)))).map(describeEndpoint);
      printList(endpoints, { json: options.json, jsonValue: { webhooks: endpoints }, empty: `no webhooks in account "${options.account}"` });
    });

  webhook
    .command('remove <webhook>')
    .description('remove a receiver, by id or name (its pending deliveries are dropped)')
    .requiredOption('--account <name>', 'the account')
    .action(async (reference: string, options: { account: string }) => {
      await onEndpoint(withServices, options.account, reference, (s, account, endpoint) => s.webhooks.endpoints.remove(account, endpoint));
      writeLines(process.stdout, [`removed webhook ${reference}`]);
    });

  webhook
    .command('enable <webhook>')
    .description('turn a receiver (id or name) that was disabled after days of failures back on (its pending deliveries go on)')
    .requiredOption('--account <name>', 'the account')
    .action(async (reference: string, options: { account: string }) => {
      await onEndpoint(withServices, options.account, reference, (s, account, endpoint) => s.webhooks.endpoints.enable(account, endpoint));
      writeLines(process.stdout, [`enabled webhook ${reference}`]);
    });

  webhook
    .command('test <webhook>')
    .description('send a signed webhook.test message to a receiver (id or name) now and show how it answered')
    .requiredOption('--account <name>', 'the account')
    .option('--json', 'print the outcome as JSON')
    .action(async (reference: string, options: { account: string; json?: boolean }) => {
      const attempt = await onEndpoint(withServices, options.account, reference, async (s, account, endpoint) => {
        try {
          return await s.webhooks.endpoints.test(account, endpoint);
        } finally {
          // Its kept-alive connection would hold the command open.
          s.webhooks.sender.close();
        }
      });
      print(describeAttempt(attempt), options.json);
      if (attempt.error !== null) process.exitCode = 1;
    });

  webhook
    .command('deliveries <webhook>')
    .description('a receiver’s (id or name) latest deliveries, newest first, with every attempt')
    .requiredOption('--account <name>', 'the account')
    .option('--limit <n>', 'how many', whole('--limit'), 20)
    .option('--json', 'print them as JSON')
    .action(async (reference: string, options: { account: string; limit: number; json?: boolean }) => {
      // One more than asked, to tell whether the list was cut.
      const found = await onEndpoint(withServices, options.account, reference, (s, account, endpoint) =>
        s.webhooks.endpoints.deliveries(account, endpoint, options.limit + 1),
      );
      const deliveries = found.slice(0, options.limit).map(describeDelivery);
      const cut = found.length > options.limit ? cutNote(options.limit, 'more', 'deliveries', { which: 'newest' }) : undefined;
      if (options.json || deliveries.length === 0) {
        printList(deliveries, { json: options.json, jsonValue: { deliveries }, empty: `no deliveries to webhook ${reference} yet`, cut });
        return;
      }
      writeLines(process.stdout, [...deliveryLines(deliveries), ...(cut ? ['', cut] : [])]);
    });

  webhook
    .command('redeliver <delivery>')
    .description('send a delivery again (it is due at once, whatever its state)')
    .requiredOption('--account <name>', 'the account')
    .action(async (delivery: string, options: { account: string }) => {
      const done = await withServices(async (s) => s.webhooks.endpoints.redeliver(await accountNamed(s, options.account), whole('delivery')(delivery)));
      if (!done) throw new CommandError(`no delivery ${delivery} in account "${options.account}"`);
      writeLines(process.stdout, [`delivery ${delivery} will be sent again by the running server`]);
    });
}
