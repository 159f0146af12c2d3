import { describe, expect, it } from 'vitest';
import { choosesHost, parsePostgresHosts } from '../../src/store/dialects/postgres-hosts.js';
import { describeStore } from '../../src/store/dialects/location.js';
import { maskPassword } from '../../src/common/text.js';

describe('a DATABASE_URL with several PostgreSQL hosts', () => {
  it('splits the hosts, keeps the rest of the URL for the first, and reads target_session_attrs', () => {
    const url = 'postgres://app:secret@db1:5433,db2,[::1]:5434/members?sslmode=disable&target_session_attrs=read-write';
    expect(parsePostgresHosts(url)).toEqual({
      url: 'postgres://app:secret@db1:5433/members?sslmode=disable',
      hosts: [
        { host: 'db1', port: 5433 },
        { host: 'db2', port: 5432 },
        { host: '::1', port: 5434 },
      ],
      readWrite: true,
    });
    expect(choosesHost(parsePostgresHosts(url))).toBe(true);
    expect(describeStore(url)).toBe('postgres://db1:5433,db2,[::1]:5434/members');
  });

  it('leaves a one-host URL to pg as it is, unless read-write is asked', () => {
    expect(choosesHost(parsePostgresHosts('postgres://app@db1:5432/members'))).toBe(false);
    expect(choosesHost(parsePostgresHosts('postgres://app@db1/members?target_session_attrs=any'))).toBe(false);
    expect(choosesHost(parsePostgresHosts('postgres://app@db1/members?target_session_attrs=read-write'))).toBe(true);
  });

  it('names what is wrong', () => {
    expect(() => parsePostgresHosts('postgres://db1,db2/m?target_session_attrs=primary')).toThrow(
      'DATABASE_URL: target_session_attrs must be any or read-write, not "primary"',
    );
    expect(() => parsePostgresHosts('postgres://db1:x,db2/m')).toThrow('DATABASE_URL: "db1:x" is not a HOST or HOST:PORT');
  });
});

describe('a DATABASE_URL whose password is not percent-encoded', () => {
  it('names the problem and shows the URL with its password masked, never the password', () => {
    for (const url of [
      'postgres://app:se#cr/et?@db1:5432/members',
      'postgres://app:pa#ss@db1/members',
      'postgres://app:pa?ss@db1/members',
      'postgres://app:pa/ss@db1:5433/members',
    ]) {
      const error = (() => {
        try {
          parsePostgresHosts(url);
        } catch (thrown) {
          return (thrown as Error).message;
        }
        return '';
      })();
      expect(error).toMatch(/^DATABASE_URL: the password \(or user name\) holds a character .*percent-encoded .*, as in postgres:\/\/app:\*\*\*\*@db1/);
      for (const secret of ['se#cr', 'pa#ss', 'pa?ss', 'pa/ss', 'et?']) expect(error).not.toContain(secret);
    }
    // Encoded, it reads; and a password is never in a message about another part.
    expect(parsePostgresHosts('postgres://app:pa%23ss@db1/members').hosts).toEqual([{ host: 'db1', port: 5432 }]);
    expect(maskPassword('postgres://app:secret@db1:5432/members')).toBe('postgres://app:****@db1:5432/members');
    expect(maskPassword('mysql://root:hunter2@localhost/members')).toBe('mysql://root:****@localhost/members');
    expect(maskPassword('./data/me@home.db')).toBe('./data/me@home.db');
  });
});
