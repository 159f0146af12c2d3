/**
 * The console's members page at a million members: the first page and the last (keyset), as
 * an operator's browser asks for them, timed from this process on the same machine (p50 of 20
 * each; a page is 50 members with the count); and the one search box with what an operator
 * types into it (p50 of 20 requests over five searches, each printed).
 */
import { cli, median } from './lib.js';
import { seededMember } from './seed-members.js';

/** What an operator looks for: a member by id, by its full login, by its e-mail, by part of its phone number, and a surname that thousands share. */
function searches(): Record<string, string> {
  const member = seededMember(424_242);
  return {
    id: '424243',
    login: member.login,
    'e-mail': member.email,
    'phone (profile)': member.phone.slice(-9),
    'common surname': member.login.split('.')[1]!.replace(/\d+$/, ''),
  };
}

export async function measureConsolePages(
  url: string,
  account: string,
  env: Record<string, string>,
): Promise<{ firstMs: number; lastMs: number; searchMs: number }> {
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
  const time = async (path: string, count = 20) => {
    const times: number[] = [];
    for (let i = 0; i < count; i++) {
      const started = performance.now();
      const answer = await fetch(`${url}${path}`, { headers: { cookie } });
      const body = await answer.text();
      if (answer.status !== 200 || !body.includes('<tbody>')) throw new Error(`members page answered ${answer.status}`);
      times.push(performance.now() - started);
    }
    return count === 20 ? median(times) : times;
  };
  const members = `/admin/accounts/${encodeURIComponent(account)}/members`;
  const firstMs = (await time(members)) as number;
  const lastMs = (await time(`${members}?last=1`)) as number;
  const searchTimes: number[] = [];
  for (const [what, text] of Object.entries(searches())) {
    const times = (await time(`${members}?${new URLSearchParams({ q: text })}`, 4)) as number[];
    console.log(`  search box, ${what} (${text}): ${times.map((t) => t.toFixed(1)).join(', ')} ms`);
    searchTimes.push(...times);
  }
  return { firstMs, lastMs, searchMs: median(searchTimes) };
}
