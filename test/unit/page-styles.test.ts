/**
 * The member pages' styles: one stylesheet file (linked under a name that holds its content's
 * hash, allowed by `style-src 'self'`), and on an account's pages one inline rule, its accent,
 * whose text must hash to the source the page's policy allows, or browsers drop it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { html } from '../../src/http/html.js';
import { memberPage } from '../../src/http/link-pages.js';
import { PAGES_STYLESHEET } from '../../src/pages/stylesheet.js';
import { layout, policy } from '../../src/pages/views/layout.js';
import { pageChrome } from '../support/views.js';

describe('member pages', () => {
  it('link one stylesheet named by its content’s hash, and the pages opened from a link hold no inline style', () => {
    expect(PAGES_STYLESHEET.path).toMatch(/^\/assets\/pages\.[0-9a-f]{10}\.css$/);
    expect(PAGES_STYLESHEET.text).toContain('--accent');
    const page = memberPage('Verify', html`<p>ok</p>`);
    expect(page).toContain(`<link rel="stylesheet" href="${PAGES_STYLESHEET.path}">`);
    expect(page).not.toContain('<style');
  });

  it('hold the account’s accent as one inline rule whose text hashes to a source of the page’s policy', () => {
    const chrome = pageChrome({ pageAccent: '#2f6b3a' });
    const page = layout(chrome, 'Sign in', html`<p>x</p>`);
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
    expect(styles).toEqual([':root{--accent:#2f6b3a}']);
    const source = `'sha256-${createHash('sha256').update(styles[0]!).digest('base64')}'`;
    expect(policy(chrome)).toMatch(new RegExp(`style-src 'self' ${source.replace(/[+/]/g, '\\$&')}`));
  });
});
