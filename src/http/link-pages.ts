/**
 * The small pages a member opens from a link (the e-mail verification, the password reset's
 * link that cannot be used) and the home page: the member pages' stylesheet (a file, allowed by
 * `style-src 'self'`), escaped content, never cached.
 */
import type { FastifyReply } from 'fastify';
import { PAGES_STYLESHEET } from '../pages/stylesheet.js';
import { html, type Html } from './html.js';

export function memberPage(title: string, content: Html): string {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin"><title>${title}</title>
<link rel="stylesheet" href="${PAGES_STYLESHEET.path}"></head>
<body><main><h1>${title}</h1>${content}</main></body>
</html>
`.value;
}

export function sendMemberPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);
}
