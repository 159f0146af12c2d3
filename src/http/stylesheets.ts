/**
 * A front end's stylesheet: a real `.css` file beside its module, served under a name that
 * holds a hash of its content (`/assets/pages.3f2a9c1e.css`), so that it is cached for good
 * (`immutable`) and a new release is a new name. Pages link to it and their policy allows it
 * with `style-src 'self'`: no style is inline but an account's accent (pages/views/layout.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

export interface Stylesheet {
  /** The address pages link to. */
  readonly path: string;
  readonly text: string;
}

/** The stylesheet of `file` (a URL beside the calling module: the same in src/ and in dist/), named `name.HASH.css` under `base`. */
export function stylesheet(file: URL, base: string, name: string): Stylesheet {
  const text = readFileSync(file, 'utf8');
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 10);
  return { path: `${base}/${name}.${hash}.css`, text };
}

/** Serves the stylesheet from `scope`, whose own prefix its path starts with. */
export function serveStylesheet(scope: FastifyInstance, sheet: Stylesheet): void {
  scope.get(sheet.path.slice(scope.prefix.length), { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=31536000, immutable').send(sheet.text),
  );
}
