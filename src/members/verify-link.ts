/**
 * The link /create/ answers in `verify_url`. Its code is an HMAC over the account, the member
 * id and the login, under a key the service generates and keeps in its store, so a link
 * cannot be forged or moved to another member. Changing the login retires old links.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export class VerifyLinks {
  /** `publicUrl` is asked for each link: the server may learn its address only once it listens. */
  constructor(
    private readonly key: Buffer,
    private readonly publicUrl: () => string,
  ) {}

  code(accountName: string, memberId: number, login: string): string {
    return createHmac('sha256', this.key).update(JSON.stringify([accountName, memberId, login])).digest('base64url');
  }

  url(accountName: string, memberId: number, login: string): string {
    const query = new URLSearchParams({ user: accountName, login, id: String(memberId), code: this.code(accountName, memberId, login) });
    return `${this.publicUrl()}/api2/verify/?${query}`;
  }

  matches(accountName: string, memberId: number, login: string, code: string): boolean {
    const expected = Buffer.from(this.code(accountName, memberId, login));
    const presented = Buffer.from(code);
    return expected.length === presented.length && timingSafeEqual(expected, presented);
  }
}
