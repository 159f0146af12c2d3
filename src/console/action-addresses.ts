/**
 * Every console address a browser's bar can show opens a page. A form's target (`…/status`,
 * `…/keys/add`) is in the bar after a refused change or a confirmation, which are answered
 * where the form was posted; bookmarked, shared or opened in a new tab, it is a GET. Such a
 * GET answers 303 to the page the form belongs to: the nearest address above it that is a
 * page (`…/members/7/sessions/end` → `…/members/7`, `…/members/bulk?q=x` → `…/members?q=x`),
 * with the same query. It changes nothing: only a POST does.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Watches the routes `scope` registers from now on; the function it answers, called once
 * they all are, adds the GET of each form target that has none.
 */
export function actionAddresses(scope: FastifyInstance): () => void {
  const pages = new Set<string>();
  const actions: string[] = [];
  // The sections' routes too (a hook of the scope is its children's): their URLs are whole.
  scope.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (methods.includes('GET')) pages.add(route.url);
    else if (methods.includes('POST')) actions.push(route.url);
  });
  return () => {
    for (const url of new Set(actions.filter((action) => !pages.has(action)))) {
      const page = pageAbove(url, pages) ?? `${scope.prefix}/`;
      scope.get(url.slice(scope.prefix.length), async (request, reply) => reply.code(303).header('location', addressOf(page, request)).send());
    }
  };
}

/** The nearest route above `url` (by whole path segments) that is a page. */
function pageAbove(url: string, pages: ReadonlySet<string>): string | undefined {
  const segments = url.split('/');
  while (segments.length > 2) {
    segments.pop();
    const above = segments.join('/');
    if (pages.has(above)) return above;
  }
  return undefined;
}

/** A route's address with the request's own parameters and query. */
function addressOf(route: string, request: FastifyRequest): string {
  const params = request.params as Record<string, string>;
  const path = route.replace(/:(\w+)/g, (_whole, name: string) => encodeURIComponent(params[name] ?? ''));
  const query = request.url.indexOf('?');
  return query === -1 ? path : path + request.url.slice(query);
}
