/**
 * Mails are rows, not timers: a welcome mail queued by /create/ is being sent (the mail server
 * holds it, unanswered) when the server is killed with SIGKILL; started again on the same
 * store, the server sends it once the killed server's lease has run out.
 */
import { describe, expect, it } from 'vitest';
import { exitOf, runCli, startServe } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES } from '../support/engines.js';
import { startSmtp } from '../support/smtp.js';
import { poke } from '../support/peek.js';
import { MAIL_LEASE_MS } from '../../src/mail/mail-sender.js';

for (const engine of ENGINES) {
  describe.skipIf(!engineAvailable(engine))(`mail durability [${engine}]`, () => {
    it('sends a mail queued before a SIGKILL after the restart', async () => {
      const database = await createTestDatabase(engine);
      const smtp = await startSmtp();
      const env = { DATABASE_URL: database.url };
      try {
        let server = await startServe(env);
        const key = server.demoKey();
        const set = await runCli(['account', 'set', 'demo', '--smtp-url', smtp.url, '--mail-from', 'no-reply@site.example', '--json'], env);
        expect(set.code, set.stderr).toBe(0);
        expect(set.stdout).not.toContain('secret');
        smtp.hang = true;
        const created = await fetch(`${server.url}/api2/create/`, {
          method: 'POST',
          body: new URLSearchParams({ user: 'demo', api_key: key, _login: 'durable', _email: 'durable@example.com', send_welcome: '1' }),
        });
        expect(await created.json()).toMatchObject({ result: 'OK' });
        for (let waited = 0; smtp.hung === 0 && waited < 10_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
        expect(smtp.hung).toBe(1);
        server.child.kill('SIGKILL');
        expect(await exitOf(server.child)).toBeNull();
        smtp.hang = false;
        // As if the killed server's lease (MAIL_LEASE_MS, 40 s) had run out: moved back by its length.
        await poke(database, (db) =>
          db
            .updateTable('mail_outbox')
            .set((eb) => ({ lease_until: eb('lease_until', '-', MAIL_LEASE_MS) }))
            .where('lease_until', '>', 0)
            .execute(),
        );
        server = await startServe(env);
        try {
          const mails = await smtp.waitFor(1, MAIL_LEASE_MS + 20_000);
          expect(mails.map((mail) => mail.to)).toEqual([['durable@example.com']]);
          expect(mails[0]!.text).toContain('/api2/verify/?');
          const status = await runCli(['account', 'mail-status', 'demo', '--json'], env);
          expect(JSON.parse(status.stdout)).toMatchObject({ pending: 0, sent: 1, failed: 0 });
        } finally {
          server.child.kill('SIGTERM');
          await exitOf(server.child);
        }
      } finally {
        await smtp.close();
        await database.drop();
      }
    }, 150_000);
  });
}
