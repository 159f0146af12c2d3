/**
 * The member pages' layout: the HTML around every page's own content, the built-in one or the
 * account's (`account page-template NAME --file F`), so that the pages can wear the site's own
 * header, footer and styles.
 *
 * A layout is HTML with `{{variables}}`: `{{head}}` (the page's required head: character set,
 * viewport, its stylesheet) and `{{content}}` (the page) must each appear once; `{{logo}}`
 * (the account's logo as an image, or nothing), `{{lang}}`, `{{title}}`, `{{name}}`,
 * `{{logo_url}}` and `{{accent}}` may. Values are escaped; head, content and logo are the
 * pages' own HTML. A layout holds no script (the pages' policy allows none);
 * its own `<style>` blocks are allowed by their hashes, and stylesheets, images and fonts may
 * come from the account's allowed return origins (the site itself).
 */
import { createHash } from 'node:crypto';
import { templateParts, type TemplatePart } from '../mail/mail.js';

export const PAGE_TEMPLATE_VARIABLES = ['head', 'content', 'logo', 'lang', 'title', 'name', 'logo_url', 'accent'] as const;
export type PageTemplateVariable = (typeof PAGE_TEMPLATE_VARIABLES)[number];

/** The largest layout: a page's frame, not a site. */
export const MAX_PAGE_TEMPLATE_BYTES = 64 * 1024;

export const DEFAULT_PAGE_TEMPLATE = `<!doctype html>
<html lang="{{lang}}">
<head>{{head}}
<title>{{title}} · {{name}}</title></head>
<body><main>
<header>{{logo}}<p class="brand">{{name}}</p></header>
<h1>{{title}}</h1>
{{content}}
</main></body>
</html>
`;

/** A layout read once: its parts, and the `style-src` sources of its own `<style>` blocks. */
export interface PageTemplate {
  readonly parts: readonly TemplatePart[];
  readonly styleSources: readonly string[];
  /** The built-in layout (its page needs nothing from the site). */
  readonly builtIn: boolean;
}

export function parsePageTemplate(text: string): { ok: true; template: PageTemplate } | { ok: false; reason: string } {
  if (Buffer.byteLength(text) > MAX_PAGE_TEMPLATE_BYTES) return { ok: false, reason: `at most ${MAX_PAGE_TEMPLATE_BYTES / 1024} KiB` };
  // Every problem at once, in the order of the text's reading.
  const problems: string[] = [];
  if (/<script\b/i.test(text)) problems.push('a layout holds no <script>: the pages run none');
  const parts = templateParts(text);
  const known = new Set<string>(PAGE_TEMPLATE_VARIABLES);
  const seen = new Map<string, number>();
  for (const part of parts) {
    if (typeof part === 'string') continue;
    if (known.has(part.variable)) seen.set(part.variable, (seen.get(part.variable) ?? 0) + 1);
    else problems.push(`{{${part.variable}}} is not a variable of the layout (it has ${PAGE_TEMPLATE_VARIABLES.map((v) => `{{${v}}}`).join(', ')})`);
  }
  for (const needed of ['head', 'content']) if (seen.get(needed) !== 1) problems.push(`{{${needed}}} must appear exactly once`);
  const styles = [...text.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((match) => match[1]!);
  // A style block is allowed by the hash of its text as written: a variable in it would change that text.
  if (styles.some((style) => style.includes('{{')))
    problems.push('a <style> block holds no {{variable}} (it is allowed by its hash as written); the accent is var(--accent)');
  if (problems.length > 0) return { ok: false, reason: problems.join('; ') };
  const styleSources = styles.map((style) => `'sha256-${createHash('sha256').update(style).digest('base64')}'`);
  return { ok: true, template: { parts, styleSources, builtIn: text === DEFAULT_PAGE_TEMPLATE } };
}

const parsed = new Map<string, PageTemplate>();

/** The layout of this text (the built-in one for none, or for a stored one that no longer reads), parsed once. */
export function pageTemplateOf(text: string | undefined): PageTemplate {
  const source = text ?? DEFAULT_PAGE_TEMPLATE;
  let template = parsed.get(source);
  if (!template) {
    const read = parsePageTemplate(source);
    template = read.ok ? read.template : pageTemplateOf(undefined);
    if (parsed.size > 1000) parsed.clear();
    parsed.set(source, template);
  }
  return template;
}
