/**
 * The small pages a member opens from a link (the e-mail verification, the password reset):
 * one stylesheet, inline and allowed by its hash in the page's Content-Security-Policy (no
 * other style, no script), escaped content, never cached.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { html, type Html } from './html.js';

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem;color:#222}label{display:block;margin:1rem 0 .25rem}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}button{font:inherit;margin-top:1.25rem;padding:.5rem 1rem}.error{color:#a00}';

/** The `style-src` source that allows the pages' stylesheet. */
export const MEMBER_PAGE_STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

export function memberPage(title: string, content: Html): string {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="same-origin"><title>${title}</title>
<style>${STYLE}</style></head>
<body><h1>${title}</h1>${content}</body>
</html>
`.value;
}

export function sendMemberPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);
}
