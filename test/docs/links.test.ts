/**
 * Every relative link of the repository's Markdown files leads somewhere: the file or folder
 * exists, and an anchor into a Markdown file names one of its headings, slugged as GitHub
 * slugs them (github-slugger). Links to other sites, and text in code, are not checked.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The Markdown files git knows of, committed or not yet (ignored ones, node_modules among them, left out). */
function markdownFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', '*.md'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(listed.split('\n').filter((path) => path !== '' && existsSync(join(ROOT, path))))].sort();
}

interface Line {
  readonly number: number;
  /** The line with its inline code spans blanked out, so that nothing in them reads as a link. */
  readonly text: string;
}

/** The lines outside fenced code blocks. */
function proseLines(markdown: string): Line[] {
  const lines: Line[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((line, index) => {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      return;
    }
    if (marker !== undefined) {
      fence = marker;
      return;
    }
    lines.push({ number: index + 1, text: withoutCodeSpans(line) });
  });
  return lines;
}

/** A code span (`` `x` ``, ``` ``x`` ```) replaced by spaces; an unmatched backtick is text. */
function withoutCodeSpans(line: string): string {
  return line.replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, (span) => ' '.repeat(span.length));
}

/** What a heading shows, as GitHub renders it before slugging: no code marks, links as their text, no emphasis marks or HTML tags. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+/g, '')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__|\*)/g, '')
    .trim();
}

/** The anchors of a Markdown file: its headings' slugs (repeats numbered, as GitHub does), and explicit `id`/`name` anchors. */
function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  let fence: string | undefined;
  let previous = '';
  for (const line of markdown.split('\n')) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined;
      previous = '';
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      previous = '';
      continue;
    }
    const atx = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    if (atx) anchors.add(slugger.slug(headingText(atx[1]!)));
    // A setext heading: a paragraph line underlined with = or -.
    else if (/^ {0,3}(=+|-+)\s*$/.test(line) && /^ {0,3}[^\s|>#*+-]/.test(previous)) anchors.add(slugger.slug(headingText(previous)));
    for (const match of line.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(match[1]!);
    previous = line;
  }
  return anchors;
}

/** Link targets on a line: `[text](target)`, `![alt](target)`, `[text](<target> "title")`, and `[label]: target` definitions. */
function targetsOn(text: string): Array<{ readonly link: string; readonly target: string }> {
  const found: Array<{ link: string; target: string }> = [];
  for (const match of text.matchAll(/\]\(\s*(<[^>]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)) {
    found.push({ link: linkAround(text, match.index, match[0].length), target: match[1]!.replace(/^<|>$/g, '') });
  }
  const definition = /^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(text);
  if (definition) found.push({ link: definition[0].trim(), target: definition[1]!.replace(/^<|>$/g, '') });
  return found;
}

/** The link as written, from its opening bracket (as far back as it can be found on the line) to its closing parenthesis. */
function linkAround(text: string, closing: number, length: number): string {
  let depth = 0;
  for (let at = closing - 1; at >= 0; at -= 1) {
    if (text[at] === ']') depth += 1;
    else if (text[at] === '[') {
      if (depth === 0) return text.slice(text[at - 1] === '!' ? at - 1 : at, closing + length);
      depth -= 1;
    }
  }
  return text.slice(closing, closing + length);
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(path: string): Set<string> {
  let anchors = anchorCache.get(path);
  if (!anchors) anchorCache.set(path, (anchors = anchorsOf(readFileSync(path, 'utf8'))));
  return anchors;
}

/** What is wrong with each relative link of one file, as one line each naming the file, the line, the link and what is missing. */
function brokenLinks(file: string, root = ROOT): string[] {
  const problems: string[] = [];
  const path = join(root, file);
  for (const { number, text } of proseLines(readFileSync(path, 'utf8'))) {
    for (const { link, target } of targetsOn(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // http(s), mailto and other schemes
      const where = `${file}:${number}: ${link}`;
      const hash = target.indexOf('#');
      let pathPart: string;
      let anchor: string | undefined;
      try {
        pathPart = decodeURI(hash === -1 ? target : target.slice(0, hash));
        anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      } catch {
        problems.push(`${where}: a malformed %-escape in ${target}`);
        continue;
      }
      const destination = pathPart === '' ? path : pathPart.startsWith('/') ? join(root, pathPart) : resolve(dirname(path), pathPart);
      const shown = relative(root, destination).split(sep).join('/') || '.';
      if (destination !== root && !destination.startsWith(root + sep)) {
        problems.push(`${where}: ${pathPart} points outside the repository`);
        continue;
      }
      if (!existsSync(destination)) {
        problems.push(`${where}: no file or folder ${shown}`);
        continue;
      }
      if (anchor === undefined || anchor === '' || !destination.endsWith('.md') || !statSync(destination).isFile()) continue;
      if (!anchorsOfFile(destination).has(anchor)) problems.push(`${where}: no heading with the anchor #${anchor} in ${shown}`);
    }
  }
  return problems;
}

describe('links between the Markdown files', () => {
  const files = markdownFiles();

  it('finds the Markdown files', () => {
    expect(files).toContain('README.md');
    expect(files.filter((file) => file.startsWith('docs/')).length).toBeGreaterThan(0);
  });

  it.each(files)('every relative link and anchor of %s leads somewhere', (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });

  it('slugs headings as GitHub does', () => {
    const anchors = anchorsOf(
      ['# Set-up', "## `POST /api2/login/`: check a member's login", '## Set-up', '```', '# not a heading', '```', 'Setext', '---'].join('\n'),
    );
    expect([...anchors]).toEqual(['set-up', 'post-api2login-check-a-members-login', 'set-up-1', 'setext']);
  });

  it('names the file, the line, the link and what is missing; reads nothing in code or on other sites', () => {
    const root = mkdtempSync(join(tmpdir(), 'member-api-links-'));
    try {
      mkdirSync(join(root, 'docs'));
      writeFileSync(join(root, 'docs', 'b.md'), '# B\n\n## Two words\n');
      writeFileSync(
        join(root, 'a.md'),
        [
          '# A',
          '[ok](docs/b.md#two-words) ![img](docs/b.md) [here](#a) [site](https://example.com/x#y)',
          '[gone](docs/c.md) and [bad anchor](docs/b.md#three)',
          '`[code](nowhere.md)`',
          '```',
          '[fenced](nowhere.md)',
          '```',
          '[up](../outside.md) [self](#missing)',
        ].join('\n'),
      );
      expect(brokenLinks('a.md', root)).toEqual([
        'a.md:3: [gone](docs/c.md): no file or folder docs/c.md',
        'a.md:3: [bad anchor](docs/b.md#three): no heading with the anchor #three in docs/b.md',
        'a.md:8: [up](../outside.md): ../outside.md points outside the repository',
        'a.md:8: [self](#missing): no heading with the anchor #missing in a.md',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
