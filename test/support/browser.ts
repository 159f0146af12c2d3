/** What the browser tests share: reading a locator's text, a form POST answered with JSON, an operator signed in through its set-up link, axe-core's findings. */
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { runCli } from './cli.js';

/** A locator's text (its first match), trimmed; empty while it is not there. */
export async function text(locator: Locator): Promise<string> {
  return (
    (await locator
      .first()
      .textContent({ timeout: 1000 })
      .catch(() => '')) ?? ''
  ).trim();
}

/** A form-encoded POST, as `curl -d` sends it; its JSON answer. */
export async function post(url: string, params: Record<string, string>): Promise<any> {
  return (await fetch(url, { method: 'POST', body: new URLSearchParams(params) })).json();
}

/**
 * Makes an operator with the command line (`operator add`) and sets its password through the
 * set-up link in a new page of `context`, which signs it in. A dialog the page opens is
 * dismissed and kept in `dialogs` (a test fails on any).
 */
export async function operatorThroughLink(
  context: BrowserContext,
  server: { url: string; env: Record<string, string> },
  operator: { email: string; account: string; role: string; password: string },
  dialogs: string[],
): Promise<Page> {
  const added = await runCli(['operator', 'add', operator.email, '--account', operator.account, '--role', operator.role, '--json'], server.env);
  expect(added.code, added.stderr).toBe(0);
  const link = new URL((JSON.parse(added.stdout) as { link: string }).link);
  const page = await context.newPage();
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  await page.goto(`${server.url}${link.pathname}${link.search}`);
  await page.fill('input[name=password]', operator.password);
  await page.fill('input[name=confirm]', operator.password);
  await page.click('button[type=submit]');
  // Setting the password signs the operator in: it lands on its accounts (or its one account's members).
  await page.waitForURL((url) => url.pathname.startsWith('/admin/') && !url.pathname.startsWith('/admin/setup'));
  await expect.poll(() => text(page.locator('h1'))).toMatch(/^(Members of|Your accounts)/);
  return page;
}

/**
 * Where a browser test saves a page's screenshot: `test-output/screenshots/` (ignored by git),
 * so that `npm test` leaves the tree as it found it; `npm run screenshots` runs the browser
 * tests with SCREENSHOTS_DIR=docs/images to refresh the docs' pictures.
 */
export function screenshotPath(name: string, options: { forDocs?: boolean } = {}): string {
  // A test's own evidence (forDocs: false) stays in test-output/, whatever SCREENSHOTS_DIR says.
  const folder = options.forDocs === false ? 'test-output/screenshots' : (process.env.SCREENSHOTS_DIR ?? 'test-output/screenshots');
  mkdirSync(folder, { recursive: true });
  return `${folder}/${name}.png`;
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical violations axe-core finds on the page in front, each as "rule: target". */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const results = await page.evaluate<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }>(
    'axe.run(document, { resultTypes: ["violations"] })',
  );
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')}`));
}
