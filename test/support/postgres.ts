import pg from 'pg';

/** The server the tests create their databases on. Any database on it will do as a base. */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function postgresReachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => {});
  }
}

/** The URL of a database of the test server. */
export function postgresUrlOf(name: string): string {
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Names made here, and a template's name handed over by the global set-up: nothing to quote. */
const DATABASE_NAME = /^[a-z_][a-z0-9_]*$/;

/** "source database is being accessed by other users": a connection to the template is still open. */
const TEMPLATE_IN_USE = '55006';
/** PostgreSQL itself waits up to 5 s for those connections to end before refusing: each try may take that long. */
const CREATE_ATTEMPTS = 3;

/**
 * `create database name`, as a copy of `template` if given. A copy needs nobody connected to
 * the template: none is once the set-up that migrated it has closed its store, but a backend
 * may take a moment to go after its client left, so that refusal is met with a few more tries.
 */
export async function createDatabase(name: string, options: { template?: string } = {}): Promise<void> {
  for (const given of [name, options.template]) if (given !== undefined && !DATABASE_NAME.test(given)) throw new Error(`not a test database's name: ${given}`);
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`create database ${name}${options.template ? ` template ${options.template}` : ''}`);
        return;
      } catch (error) {
        if ((error as { code?: string }).code !== TEMPLATE_IN_USE || attempt >= CREATE_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
      }
    }
  } finally {
    await admin.end();
  }
}

export async function dropDatabase(name: string): Promise<void> {
  if (!DATABASE_NAME.test(name)) throw new Error(`not a test database's name: ${name}`);
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`drop database if exists ${name} with (force)`);
  } finally {
    await client.end();
  }
}

/**
 * Creates a database for one test suite and returns its URL and a way to drop it: empty, or a
 * copy of `template` (a migrated one the global set-up made, see global-setup.ts).
 */
export async function createPostgresDatabase(options: { template?: string } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `member_api_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await createDatabase(name, options);
  return { url: postgresUrlOf(name), drop: () => dropDatabase(name) };
}
