/**
 * The link /create/ answers in `verify_url`. Its code is an HMAC over the account, the member
 * id, the login and the e-mail address (folded), under a key the service generates and keeps
 * in its store, so a link cannot be forged or moved to another member, and verifies only the
 * address it was made for: changing the login or the address retires old links. The URL's
 * parameters are the seed's (`user`, `login`, `id`, `code`); the address is bound, not sent.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { foldKey } from './member.js';

export class VerifyLinks {
  /** `publicUrl` is asked for each link: the server may learn its address only once it listens. */
  constructor(
    private readonly key: Buffer,
    private readonly publicUrl: () => string,
  ) {}

  code(accountName: string, memberId: number, login: string, email: string): string {
    return createHmac('sha256', this.key)
      .update(JSON.stringify([accountName, memberId, login, foldKey(email)]))
      .digest('base64url');
  }

  url(accountName: string, memberId: number, login: string, email: string): string {
    const query = new URLSearchParams({ user: accountName, login, id: String(memberId), code: this.code(accountName, memberId, login, email) });
    return `${this.publicUrl()}/api2/verify/?${query}`;
  }

  matches(accountName: string, memberId: number, login: string, email: string, code: string): boolean {
    const expected = Buffer.from(this.code(accountName, memberId, login, email));
    const presented = Buffer.from(code);
    return expected.length === presented.length && timingSafeEqual(expected, presented);
  }
}
