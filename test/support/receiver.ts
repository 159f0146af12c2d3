/** A real HTTP receiver of webhooks, started by a test: it records every request and answers as told. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** The status the next requests get (200 unless told); a function decides per request. */
  answer: number | ((request: Received, index: number) => number);
  /** How long the receiver takes to answer each request (0 unless told). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    answer: 200,
    delayMs: 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { headers: request.headers, body: Buffer.concat(chunks).toString() };
      received.push(entry);
      const status = typeof receiver.answer === 'function' ? receiver.answer(entry, received.length - 1) : receiver.answer;
      const respond = () => response.writeHead(status, status >= 300 && status < 400 ? { location: 'http://127.0.0.1:1/elsewhere' } : {}).end('ok');
      if (receiver.delayMs > 0) setTimeout(respond, receiver.delayMs);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return receiver;
}
