/** A real SMTP server (the `smtp-server` package), started by a test: it keeps every mail it accepts. */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  readonly from: string;
  readonly to: string[];
  readonly subject: string;
  /** The text body, transfer encoding undone. */
  readonly text: string;
}

export interface MailCatcher {
  /** smtp://user:password@127.0.0.1:PORT, as an account's --smtp-url. */
  readonly url: string;
  readonly mails: ReceivedMail[];
  /** Mails received whole but refused (the `refuse` answer), counted. */
  refused: number;
  /** How many of the next mails to refuse with a temporary error (451). */
  refuse: number;
  /** While true, a mail's data is read and then never answered (a server that hangs). */
  hang: boolean;
  /** Mails whose data arrived while hanging. */
  hung: number;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

/** Undoes quoted-printable (soft line breaks, =XX); a base64 body is decoded whole. */
function decodeBody(headers: string, body: string): string {
  const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(headers)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

export async function startSmtp(): Promise<MailCatcher> {
  const catcher: MailCatcher = {
    url: '',
    mails: [],
    refused: 0,
    refuse: 0,
    hang: false,
    hung: 0,
    async waitFor(count, timeoutMs = 15_000) {
      for (let waited = 0; catcher.mails.length < count && waited < timeoutMs; waited += 50) await new Promise((r) => setTimeout(r, 50));
      return catcher.mails;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    // Plain SMTP on loopback: no STARTTLS (a self-signed certificate nodemailer would refuse).
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    onAuth(auth, _session, callback) {
      if (auth.username === 'mailer' && auth.password === 'secret') callback(null, { user: auth.username });
      else callback(new Error('wrong credentials'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (catcher.hang) {
          catcher.hung++;
          return;
        }
        if (catcher.refuse > 0) {
          catcher.refuse--;
          catcher.refused++;
          const error = new Error('try again later') as Error & { responseCode: number };
          error.responseCode = 451;
          return callback(error);
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const split = raw.indexOf('\r\n\r\n');
        const headers = raw.slice(0, split);
        const unfolded = headers.replace(/\r\n[ \t]+/g, ' ');
        catcher.mails.push({
          from: typeof session.envelope.mailFrom === 'object' && session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: /^subject:\s*(.*)$/im.exec(unfolded)?.[1] ?? '',
          text: decodeBody(unfolded, raw.slice(split + 4)),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (catcher as { url: string }).url = `smtp://mailer:secret@127.0.0.1:${(server.server.address() as AddressInfo).port}`;
  return catcher;
}
