/**
 * The console's members page at a million members: the first page and the last (keyset), as
 * an operator's browser asks for them, timed from this process on the same machine (p50 of 20
 * each; a page is 50 members with the count).
 */
import { cli, median } from './lib.js';

export async function measureConsolePages(url: string, account: string, env: Record<string, string>): Promise<{ firstMs: number; lastMs: number }> {
  // Added (a rerun over the same store finds it there, with a password: no link then), and
  // reset for a link of this run.
  cli(['operator', 'add', 'bench@example.com', '--account', account, '--role', 'viewer', '--json'], env);
  const { link } = JSON.parse(cli(['operator', 'reset', 'bench@example.com', '--json'], env)) as { link: string };
  const password = 'bench-console-password';
  const token = new URL(link).searchParams.get('token')!;
  const set = await fetch(`${url}/admin/setup`, { method: 'POST', body: new URLSearchParams({ token, password, confirm: password }) });
  if (set.status !== 200) throw new Error(`the set-up form answered ${set.status}`);
  const signIn = await fetch(`${url}/admin/sign-in`, {
    method: 'POST',
    body: new URLSearchParams({ email: 'bench@example.com', password }),
    redirect: 'manual',
  });
  const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
  const time = async (path: string) => {
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const answer = await fetch(`${url}${path}`, { headers: { cookie } });
      const body = await answer.text();
      if (answer.status !== 200 || !body.includes('<tbody>')) throw new Error(`members page answered ${answer.status}`);
      times.push(performance.now() - started);
    }
    return median(times);
  };
  const members = `/admin/accounts/${encodeURIComponent(account)}/members`;
  return { firstMs: await time(members), lastMs: await time(`${members}?last=1`) };
}
