/**
 * One webhook request: the event's JSON, signed as the Standard Webhooks specification says
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`, with the `standardwebhooks`
 * package), POSTed over a kept-alive connection, redirects not followed, cut off after
 * `timeoutMs`. Never throws: the outcome says what happened.
 */
import http from 'node:http';
import https from 'node:https';
import { Webhook } from 'standardwebhooks';
import { isIP } from 'node:net';
import { guardedLookup, refusedAddress } from './address-guard.js';
import type { WebhookAttempt } from './webhook.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Bytes of a receiver's answer read at most (it is only drained, never kept). */
const MAX_ANSWER_BYTES = 64 * 1024;

export class WebhookSender {
  private readonly agents: { http: http.Agent; https: https.Agent };

  constructor(
    private readonly allowPrivate: boolean,
    private readonly timeoutMs = WEBHOOK_TIMEOUT_MS,
    maxSockets = 16,
  ) {
    const lookup = guardedLookup(allowPrivate) as unknown as http.AgentOptions['lookup'];
    this.agents = {
      http: new http.Agent({ keepAlive: true, maxSockets, lookup }),
      https: new https.Agent({ keepAlive: true, maxSockets, lookup }),
    };
  }

  /** Sends `body` (the event's JSON) as message `messageId`, signed with `secret`. */
  send(url: string, secret: string, messageId: string, body: string, now: Date): Promise<WebhookAttempt> {
    const started = performance.now();
    const at = now.getTime();
    const done = (statusCode: number | null, error: string | null): WebhookAttempt => ({
      at,
      statusCode,
      durationMs: Math.round(performance.now() - started),
      error,
    });
    return new Promise((resolve) => {
      let target: URL;
      try {
        target = new URL(url);
      } catch {
        resolve(done(null, 'the URL does not parse'));
        return;
      }
      // An address written in the URL is connected to without a look-up: check it here.
      const literal = target.hostname.replace(/^\[|\]$/g, '');
      const blocked = this.allowPrivate || !isIP(literal) ? undefined : refusedAddress(literal);
      if (blocked) {
        resolve(done(null, `${blocked}; webhooks go to public addresses only`));
        return;
      }
      const secure = target.protocol === 'https:';
      const signature = new Webhook(secret).sign(messageId, now, body);
      const request = (secure ? https : http).request(target, {
        method: 'POST',
        agent: secure ? this.agents.https : this.agents.http,
        timeout: this.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'member-api-webhooks',
          'webhook-id': messageId,
          'webhook-timestamp': String(Math.floor(at / 1000)),
          'webhook-signature': signature,
        },
      });
      const timer = setTimeout(() => request.destroy(new Error(`no answer within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
      request.on('response', (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const finish = () => {
          clearTimeout(timer);
          const status = response.statusCode ?? 0;
          // 2xx is delivered; a redirect is not followed, and counts as a failure.
          resolve(
            done(
              status,
              status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
            ),
          );
        };
        response.on('end', finish);
        response.on('close', finish);
        response.on('error', finish);
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.timeoutMs / 1000} s`)));
      request.on('error', (error) => {
        clearTimeout(timer);
        resolve(done(null, error.message));
      });
      request.end(body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
