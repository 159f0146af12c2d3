/** What the browser tests share: reading a locator's text, and a form POST answered with JSON. */
import type { Locator } from 'playwright-core';

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
