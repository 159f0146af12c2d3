/**
 * `account mail-template NAME KIND --file F` (or `--default`, or `--show`): an account's own
 * texts for its mails; `account page-template NAME --file F` (the same options): its own
 * layout of the member pages; `account mail-status NAME`: the mails queued, sent and given up.
 */
import { readFileSync } from 'node:fs';
import { Argument, type Command, Option } from 'commander';
import { MAIL_KINDS, TEMPLATE_VARIABLES, type MailKind } from '../mail/mail.js';
import { writeLines } from '../common/terminal-text.js';
import { PAGE_TEMPLATE_VARIABLES } from '../accounts/page-template.js';
import { accountNamed, CommandError, print, type WithServices } from './cli-support.js';

/** What a template command does with its one option: print the text in use, go back to the built-in one, or set one read from a file. */
interface TemplateActions {
  show(): Promise<string>;
  reset(): Promise<string>;
  /** Checks and keeps the text; answers the line to print, or throws CommandError with the reason. */
  set(text: string): Promise<string>;
}

/** `--file F`, `--default` or `--show`: exactly one. */
async function templateCommand(options: { file?: string; default?: boolean; show?: boolean }, actions: TemplateActions): Promise<void> {
  const chosen = [options.file !== undefined, options.default === true, options.show === true].filter(Boolean).length;
  if (chosen !== 1) throw new CommandError('give exactly one of --file, --default, --show');
  if (options.show) {
    const text = await actions.show();
    // Into a file or a pipe, the text as it is, so that `--show > t.txt`, an edit and
    // `--file t.txt` keep it (tabs too); on a terminal, line by line, a control
    // character shown and its line breaks kept.
    if (process.stdout.isTTY) writeLines(process.stdout, text.replace(/\r?\n$/, '').split(/\r?\n/));
    else process.stdout.write(text);
    return;
  }
  if (options.default) {
    writeLines(process.stdout, [await actions.reset()]);
    return;
  }
  let text: string;
  try {
    text = readFileSync(options.file === '-' ? 0 : options.file!, 'utf8');
  } catch (error) {
    throw new CommandError(`--file: cannot read ${options.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  writeLines(process.stdout, [await actions.set(text)]);
}

export function registerMailCommands(account: Command, withServices: WithServices): void {
  account
    .command('mail-template <name>')
    .description('set, show or reset the text of one of the account’s mails: a "Subject: …" line, an empty line, the body, with {{variables}}')
    .addArgument(new Argument('<kind>', MAIL_KINDS.join(', ')).choices(MAIL_KINDS))
    .option('--file <path>', 'the template’s text, from this file ("-": standard input)')
    .option('--default', 'go back to the built-in text')
    .option('--show', 'print the text in use')
    .action(async (name: string, kind: MailKind, options: { file?: string; default?: boolean; show?: boolean }) => {
      await withServices(async (services) => {
        const found = await accountNamed(services, name);
        await templateCommand(options, {
          show: async () => (await services.mailTemplates.text(found, kind)).text,
          reset: async () => {
            await services.mailTemplates.set(found, kind, undefined);
            return `the ${kind} mail of "${name}" uses the built-in text`;
          },
          set: async (text) => {
            const changed = await services.mailTemplates.set(found, kind, text);
            if (changed.kind === 'invalid') throw new CommandError(`invalid template: ${changed.reason}`);
            return `the ${kind} mail of "${name}" is set (variables: ${TEMPLATE_VARIABLES[kind].map((v) => `{{${v}}}`).join(' ')})`;
          },
        });
      });
    });

  account
    .command('page-template <name>')
    .description('set, show or reset the layout of the account’s member pages: HTML with {{head}} and {{content}} once each, and {{variables}}')
    .option('--file <path>', 'the layout, from this file ("-": standard input)')
    .option('--default', 'go back to the built-in layout')
    .option('--show', 'print the layout in use')
    .action(async (name: string, options: { file?: string; default?: boolean; show?: boolean }) => {
      await withServices(async (services) => {
        const found = await accountNamed(services, name);
        await templateCommand(options, {
          show: () => services.accounts.pageTemplateText(found),
          reset: async () => {
            await services.accounts.setPageTemplate(name, undefined);
            return `the member pages of "${name}" use the built-in layout`;
          },
          set: async (text) => {
            const set = await services.accounts.setPageTemplate(name, text);
            if (set.kind === 'invalid') throw new CommandError(`invalid layout: ${set.reason}`);
            return `the member pages of "${name}" use this layout (variables: ${PAGE_TEMPLATE_VARIABLES.map((v) => `{{${v}}}`).join(' ')})`;
          },
        });
      });
    });

  account
    .command('mail-status <name>')
    .description('the account’s mails: queued, sent, given up')
    .addOption(new Option('--json', 'print JSON'))
    .action(async (name: string, options: { json?: boolean }) => {
      await withServices(async (services) => {
        const found = await accountNamed(services, name);
        const counts = await services.mailTemplates.counts(found);
        print({ mail_server: found.settings.smtpUrl === '' ? 'none (no mail is sent)' : 'set', ...counts }, options.json);
      });
    });
}
