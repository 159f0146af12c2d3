import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { isIpAddress, isRedirectUrl, isTimeZone } from '../../src/common/validate.js';
import { applySettingsPatch } from '../../src/accounts/account-rules.js';
import { DEFAULT_SETTINGS } from '../../src/accounts/account.js';

describe('loadConfig', () => {
  it('starts with nothing set: SQLite file, 127.0.0.1:8080, links from the listening address', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      databaseUrl: './data/members.db',
      port: 8080,
      host: '127.0.0.1',
      publicUrl: undefined,
      logLevel: 'info',
      deletedRetentionDays: 30,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every variable', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u@db/members',
      PORT: '9000',
      HOST: '0.0.0.0',
      PUBLIC_URL: 'https://members.example.com/',
      LOG_LEVEL: 'warn',
      DELETED_RETENTION_DAYS: '7',
      SWEEP_INTERVAL_SECONDS: '0',
      SESSION_RETENTION_DAYS: '2',
      LOGIN_EVENT_RETENTION_DAYS: '9',
      BODY_LIMIT_BYTES: '65536',
      MAX_PARAMETERS: '200',
      KEY_FAILURE_LIMIT: '7',
      KEY_FAILURE_WINDOW_SECONDS: '70',
      REQUEST_TIMEOUT_MS: '5000',
      TRUST_PROXY: '1',
      HASH_CONCURRENCY: '3',
      HASH_QUEUE: '12',
      METRICS_PORT: '9464',
      METRICS_HOST: '10.0.0.5',
      DEMO_KEY_FILE: '/run/member-api/demo-key',
      MAX_CONCURRENT_LISTS: '20',
      MAX_CONCURRENT_LISTS_PER_ACCOUNT: '5',
      RESPONSE_STALL_TIMEOUT_MS: '10000',
      DATABASE_POOL_SIZE: '40',
      DATABASE_REPLICA_URLS: 'postgres://u@standby1/members,postgres://u@standby2:5433/members',
      REPLICA_MAX_LAG_MS: '250',
      LIST_SLOT_WAIT_MS: '100',
      EVENT_RETENTION_DAYS: '30',
      EVENTS: 'off',
      ADMIN: 'off',
      IMPORT_UPLOAD_LIMIT_BYTES: '1048576',
      STORE_WAIT_SECONDS: '5',
      WEBHOOKS_ALLOW_PRIVATE_ADDRESSES: 'true',
      STRIPE_API_URL: 'http://127.0.0.1:12111/',
      PAYPAL_IPN_URL: 'https://ipnpb.sandbox.paypal.com/cgi-bin/webscr',
    });
    expect(config).toEqual({
      databaseUrl: 'postgres://u@db/members',
      port: 9000,
      host: '0.0.0.0',
      publicUrl: 'https://members.example.com',
      logLevel: 'warn',
      deletedRetentionDays: 7,
      sweepIntervalSeconds: 0,
      sessionRetentionDays: 2,
      loginEventRetentionDays: 9,
      eventRetentionDays: 30,
      events: false,
      admin: false,
      importUploadLimitBytes: 1048576,
      storeWaitSeconds: 5,
      webhooksAllowPrivateAddresses: true,
      bodyLimitBytes: 65536,
      maxParameters: 200,
      keyFailureLimit: 7,
      keyFailureWindowSeconds: 70,
      requestTimeoutMs: 5000,
      trustProxy: 1,
      hashConcurrency: 3,
      hashQueue: 12,
      metricsPort: 9464,
      metricsHost: '10.0.0.5',
      demoKeyFile: '/run/member-api/demo-key',
      maxConcurrentLists: 20,
      maxConcurrentListsPerAccount: 5,
      responseStallTimeoutMs: 10000,
      databasePoolSize: 40,
      databaseReplicaUrls: ['postgres://u@standby1/members', 'postgres://u@standby2:5433/members'],
      replicaMaxLagMs: 250,
      listSlotWaitMs: 100,
      stripeApiUrl: 'http://127.0.0.1:12111',
      paypalIpnUrl: 'https://ipnpb.sandbox.paypal.com/cgi-bin/webscr',
    });
    // Standbys are PostgreSQL's, of a PostgreSQL primary.
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgres://u@standby1/members' })).toThrow('DATABASE_REPLICA_URLS needs a PostgreSQL DATABASE_URL');
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@db/members', DATABASE_REPLICA_URLS: 'standby1' })).toThrow('DATABASE_REPLICA_URLS');
    expect(loadConfig({}).metricsPort).toBeUndefined();
    // The demo key goes beside the SQLite file, or into the working directory with PostgreSQL.
    expect(loadConfig({}).demoKeyFile).toBe('data/demo-api-key');
    expect(loadConfig({ DATABASE_URL: '/var/lib/member-api/members.db' }).demoKeyFile).toBe('/var/lib/member-api/demo-api-key');
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x' }).demoKeyFile).toBe('demo-api-key');
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    // The queue follows the slots unless it is set.
    expect(loadConfig({ HASH_CONCURRENCY: '5' }).hashQueue).toBe(160);
    expect(loadConfig({}).hashConcurrency).toBeGreaterThanOrEqual(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8' }).trustProxy).toBe('10.0.0.0/8');
    // Stripe's and PayPal's own addresses unless set.
    expect(loadConfig({}).stripeApiUrl).toBe('https://api.stripe.com');
    expect(() => loadConfig({ STRIPE_API_URL: 'api.stripe.com' })).toThrow('STRIPE_API_URL');
  });

  it('writes its secrets only where git does not look: the .env it reads and the demo key file of either engine', () => {
    const files = ['.env', loadConfig({}).demoKeyFile, loadConfig({ DATABASE_URL: 'postgres://db/x' }).demoKeyFile];
    // --no-index: by the patterns alone, whether or not such a file is there.
    const ignored = execFileSync('git', ['check-ignore', '--no-index', ...files], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    expect(ignored).toEqual(files);
  });

  it('refuses bad values with one line naming the variable, what it must be, and what it was', () => {
    for (const [env, message] of [
      [{ PORT: 'http' }, 'PORT must be a whole number from 0 to 65535, got "http"'],
      [{ PORT: '70000' }, 'PORT must be a whole number from 0 to 65535, got "70000"'],
      [{ METRICS_PORT: 'x' }, 'METRICS_PORT must be a whole number from 0 to 65535, got "x"'],
      [{ PUBLIC_URL: 'members.example.com' }, 'PUBLIC_URL must be an absolute http(s) URL, got "members.example.com"'],
      [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL must be an absolute http(s) URL, got "ftp://x"'],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"'],
      [{ DELETED_RETENTION_DAYS: '-1' }, 'DELETED_RETENTION_DAYS must be a whole number from 0 to 36500, got "-1"'],
      [
        { DATABASE_URL: 'mysql://root@db/members' },
        'DATABASE_URL must be a postgres:// URL or a SQLite file path (other databases are not supported), got "mysql://root@db/members"',
      ],
      [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY must be true, false, a hop count, or addresses and CIDR ranges separated by commas; "maybe" is none of these'],
      [
        { TRUST_PROXY: '10.0.0.1, 10.0.0.0/33' },
        'TRUST_PROXY must be true, false, a hop count, or addresses and CIDR ranges separated by commas; "10.0.0.0/33" is none of these',
      ],
    ] as const) {
      expect(() => loadConfig(env), message).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    }
    // Empty counts as not set; a SQLite path and a postgres URL are both fine.
    expect(loadConfig({ PORT: '', DATABASE_URL: 'sqlite:///tmp/x.db' }).port).toBe(8080);
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@h/d' }).databaseUrl).toBe('postgresql://u@h/d');
    expect(loadConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16' }).trustProxy).toBe('10.0.0.1, 192.168.0.0/16');
  });
});

describe('value checks', () => {
  it('takes absolute http(s) URLs and paths as login URLs', () => {
    for (const ok of ['https://example.com', 'http://example.com/a?b=c#d', '/welcome', '/']) expect(isRedirectUrl(ok), ok).toBe(true);
    for (const bad of [
      '',
      'example.com',
      'javascript:alert(1)',
      'data:text/html,x',
      '//evil.com',
      '/\\evil.com',
      '/\\/evil.com',
      'https://good.example\\@evil.com/',
      'https://',
      '/a b',
      'https://x/\n',
      `/${'a'.repeat(2048)}`,
    ]) {
      expect(isRedirectUrl(bad), bad).toBe(false);
    }
  });

  it('knows IANA time zones', () => {
    for (const ok of ['UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires']) expect(isTimeZone(ok)).toBe(true);
    for (const bad of ['', 'Mars/Olympus', 'x'.repeat(65)]) expect(isTimeZone(bad)).toBe(false);
  });

  it('takes literal IPv4 and IPv6 addresses only', () => {
    for (const ok of ['192.0.2.1', '::1', '2001:db8::1', '::ffff:192.0.2.1']) expect(isIpAddress(ok)).toBe(true);
    for (const bad of ['', 'localhost', '256.0.0.1', '192.0.2.1/24', ' 192.0.2.1', '1.2.3']) expect(isIpAddress(bad)).toBe(false);
  });
});

describe('account settings', () => {
  it('applies a patch, keeping what it does not name', () => {
    const result = applySettingsPatch(DEFAULT_SETTINGS, { okUrl: '/in', lockout: { threshold: 10 } });
    expect(result).toEqual({ ok: true, settings: { ...DEFAULT_SETTINGS, okUrl: '/in', lockout: { ...DEFAULT_SETTINGS.lockout, threshold: 10 } } });
  });

  it('names the first setting that is wrong', () => {
    const cases = [
      [{ failUrl: 'nope' }, 'fail-url'],
      [{ minPasswordLength: 0 }, 'min-password-length'],
      [{ minPasswordLength: 1025 }, 'min-password-length'],
      [{ timeZone: 'Nowhere/Town' }, 'time-zone'],
      [{ lockout: { threshold: 101 } }, 'lockout-threshold'],
      [{ lockout: { stepSeconds: 0 } }, 'lockout-step'],
      [{ lockout: { maxSeconds: 10, stepSeconds: 60 } }, 'lockout-max'],
    ] as const;
    for (const [patch, setting] of cases) expect(applySettingsPatch(DEFAULT_SETTINGS, patch)).toMatchObject({ ok: false, setting });
  });
});
