/**
 * The member pages' stylesheet is allowed by its hash alone (their Content-Security-Policy has
 * no other style source): the text inside the page's style element must be exactly what was
 * hashed, or browsers show the pages unstyled.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { html } from '../../src/http/html.js';
import { MEMBER_PAGE_STYLE_SOURCE, memberPage } from '../../src/http/member-pages.js';

describe('member pages', () => {
  it('hold one style element whose text hashes to the CSP source that allows it', () => {
    const page = memberPage('Verify', html`<p>ok</p>`);
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1]!);
    expect(styles).toHaveLength(1);
    expect(`'sha256-${createHash('sha256').update(styles[0]!).digest('base64')}'`).toBe(MEMBER_PAGE_STYLE_SOURCE);
  });
});
