/**
 * The console's export holds a read snapshot while its client reads: a server takes one
 * download per account at a time (another is told to try again), and cuts off a download
 * whose client stopped reading after RESPONSE_STALL_TIMEOUT_MS, releasing its snapshot.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { seedMembers } from '../../bench/seed-members.js';
import { exitOf, runCli, startServe } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES } from '../support/engines.js';

const PASSWORD = 'a-long-operator-password';

/** A GET whose answer is not read past its headers. */
function stalledGet(url: string, cookie: string): Promise<{ response: IncomingMessage; req: ClientRequest }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { cookie } }, (response) => {
      response.pause();
      resolve({ response, req });
    });
    req.once('error', reject);
    req.end();
  });
}

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`the console's export, stalled [${engine}]`, () => {
    it('takes one download per account at once, and cuts off one whose client stopped reading', async () => {
      const database = await createTestDatabase(engine);
      const env = { DATABASE_URL: database.url };
      expect((await runCli(['account', 'create', 'shop', '--json'], env)).code).toBe(0);
      await seedMembers(database.url, 1, { count: 120_000 });
      const server = await startServe({ ...env, RESPONSE_STALL_TIMEOUT_MS: '1500', SWEEP_INTERVAL_SECONDS: '0', LOG_LEVEL: 'info' });
      let held: { response: IncomingMessage; req: ClientRequest } | undefined;
      try {
        const added = await runCli(['operator', 'add', 'exporter@example.com', '--account', 'shop', '--role', 'editor', '--json'], env);
        const token = new URL((JSON.parse(added.stdout) as { link: string }).link).searchParams.get('token')!;
        const setup = await fetch(`${server.url}/admin/setup`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams({ token, password: PASSWORD, confirm: PASSWORD }),
        });
        expect(setup.status).toBe(303);
        const cookie = setup.headers.get('set-cookie')!.split(';')[0]!;
        const file = `${server.url}/admin/accounts/shop/members/export/file?format=csv`;

        held = await stalledGet(file, cookie);
        expect([held.response.statusCode, held.response.headers['content-type']]).toEqual([200, 'text/csv; charset=utf-8']);
        // A second download of the account waits a moment, then is told to try again.
        const busy = await fetch(file, { headers: { cookie } });
        expect([busy.status, busy.headers.get('retry-after')]).toEqual([503, '5']);
        expect(await busy.text()).toContain('Another export of this account');
        // The stalled one is cut off once its writes have waited RESPONSE_STALL_TIMEOUT_MS (the
        // buffers between the two must fill first: a few seconds on a busy machine), and the
        // account may download again.
        await expect.poll(() => server.output(), { timeout: 20_000, interval: 250 }).toMatch(/console export client stopped reading; cutting it off/);
        const again = await fetch(`${file}&q=nobody-is-called-this`, { headers: { cookie } });
        expect([again.status, (await again.text()).trim()]).toEqual([200, 'id,login,email,status,reg_time,last_login_time']);
      } finally {
        held?.req.destroy();
        server.child.kill('SIGTERM');
        await exitOf(server.child);
        await database.drop();
      }
    }, 120_000);
  });
}
