/**
 * A long answer streamed from a read snapshot (a list, the console's export) must keep
 * moving: a client that takes nothing for too long while bytes wait for it (in the body's
 * read-ahead, the response's or the socket's buffers) has stalled, or does it on purpose. It is
 * cut off, which ends the body and releases the store's snapshot. While nothing waits for the
 * client, the store is the slow one (a selective filter scanning many members): that is no
 * stall. Progress is bytes taken from the body or handed to the connection (an injected
 * request in tests has a stand-in socket).
 */
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

export function cutOffWhenStalled(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Readable,
  /** Bytes taken from the body so far. */
  taken: () => number,
  stallTimeoutMs: number,
  /** What the answer is, for the log line (`list client stopped reading; cutting it off`). */
  what: string,
): void {
  const socket = request.raw.socket;
  const progress = () => taken() + (socket?.bytesWritten ?? 0);
  const waiting = () => body.readableLength > 0 || reply.raw.writableLength > 0 || (socket?.writableLength ?? 0) > 0;
  let seen = progress();
  let lastProgress = Date.now();
  const watchdog = setInterval(
    () => {
      const now = Date.now();
      if (progress() !== seen || !waiting()) {
        seen = progress();
        lastProgress = now;
      } else if (now - lastProgress >= stallTimeoutMs) {
        request.log.info({ stalledMs: now - lastProgress }, `${what} client stopped reading; cutting it off`);
        clearInterval(watchdog);
        if (typeof socket?.destroy === 'function') socket.destroy();
        else reply.raw.destroy();
      }
    },
    Math.max(50, Math.min(5000, stallTimeoutMs / 4)),
  );
  watchdog.unref();
  const stop = () => clearInterval(watchdog);
  reply.raw.once('finish', stop);
  reply.raw.once('close', stop);
  // Also when the body ends before it was ever read. Once the body is done, the store holds
  // nothing for this client: the watchdog's work is over.
  body.once('close', stop);
}
