/**
 * The console's members page at a million members: the first page and the last (keyset), as
 * an operator's browser asks for them, timed from this process on the same machine (p50 of 20
 * each; a page is 50 members with the count); and the one search box with what an operator
 * types into it (p50 of 20 requests over five searches, each printed).
 */
import { ACTIVITY_KINDS } from '../src/accounts/overview.js';
import { openStore } from '../src/store/store.js';
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

/** Signs a viewer or editor of the account into the console, and answers its session cookie. */
async function consoleCookie(url: string, account: string, env: Record<string, string>): Promise<string> {
  // Added (a rerun over the same store finds it there, with a password: no link then), and
  // reset for a link of this run.
  cli(['operator', 'add', 'bench@example.com', '--account', account, '--role', 'editor', '--json'], env);
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
  return (signIn.headers.get('set-cookie') ?? '').split(';')[0]!;
}

export async function measureConsolePages(
  url: string,
  account: string,
  env: Record<string, string>,
): Promise<{ firstMs: number; lastMs: number; searchMs: number }> {
  const cookie = await consoleCookie(url, account, env);
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

/**
 * A bulk action as an operator makes it: its preview (not timed: it counts the members the
 * confirmation must find again), then the preview's confirmation, timed from its POST to its
 * redirect.
 */
async function previewedBulk(
  url: string,
  cookie: string,
  members: string,
  filter: URLSearchParams,
  action: Record<string, string>,
): Promise<{ answer: Response; seconds: number }> {
  const target = `${members}/bulk?${filter}`;
  const preview = await fetch(target, { method: 'POST', headers: { cookie, origin: url }, body: new URLSearchParams(action) });
  const page = await preview.text();
  if (preview.status !== 200) throw new Error(`the bulk ${action.action}'s preview answered ${preview.status}: ${page}`);
  const confirmation = new URLSearchParams(
    [...page.matchAll(/<input type="hidden" name="([a-z_]+)" value="([^"]*)">/g)].map((m): [string, string] => [m[1]!, m[2]!]),
  );
  // A change of many members asks for their number, typed, as the operator would.
  if (page.includes('name="typed_count"')) confirmation.set('typed_count', confirmation.get('count') ?? '');
  const started = performance.now();
  const answer = await fetch(target, { method: 'POST', headers: { cookie, origin: url }, body: confirmation, redirect: 'manual' });
  return { answer, seconds: (performance.now() - started) / 1000 };
}

/**
 * A bulk suspend through the console of the Active members registered in 120 of the seeded
 * three years (about 100,000 of the million), as an operator confirms it: the seconds from the
 * confirmation's POST to its redirect, and how many members it changed. The members are
 * marked first and restored after (activated by their mark, the mark removed), so that the
 * seeded statuses stay as the other sections expect them.
 */
export async function measureConsoleBulk(url: string, account: string, env: Record<string, string>): Promise<{ members: number; seconds: number }> {
  const cookie = await consoleCookie(url, account, env);
  const members = `${url}/admin/accounts/${encodeURIComponent(account)}/members`;
  const bulk = async (filter: Record<string, string>, action: Record<string, string>) => {
    const { answer, seconds } = await previewedBulk(url, cookie, members, new URLSearchParams(filter), action);
    const changed = Number(new URL(answer.headers.get('location') ?? '/', url).searchParams.get('changed'));
    if (answer.status !== 303 || !changed) throw new Error(`the bulk ${action.action} answered ${answer.status}: ${await answer.text()}`);
    return { members: changed, seconds };
  };
  const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
  const range = { status: 'A', registered_from: day(610), registered_before: day(490) };
  const marked = { field: 'bench_bulk', field_value: 'marked' };
  await bulk(range, { action: 'set-field', new_field: 'bench_bulk', new_value: 'marked' });
  const suspended = await bulk(range, { action: 'suspend' });
  await bulk({ ...marked, status: 'S' }, { action: 'activate' });
  await bulk(marked, { action: 'remove-field', field: 'bench_bulk' });
  return suspended;
}

/**
 * The account's overview at a million members, as an operator's browser asks for it (p50 of
 * 20): with a time expiration falling due in the next 7 days on the Active members registered
 * in 15 of the seeded days (set, then cleared, through the console's bulk actions), the failed
 * logins that the login sections recorded, and a count of every kind in every hour of the 30
 * days (upserts through the store, as registrations and logins make them).
 */
export async function measureConsoleOverview(url: string, account: string, env: Record<string, string>): Promise<{ overviewMs: number; expiring: string }> {
  const cookie = await consoleCookie(url, account, env);
  const store = openStore(env.DATABASE_URL!);
  try {
    const found = await store.accounts.findAccountByName(account);
    if (!found) throw new Error(`no account ${account}`);
    const now = Date.now();
    for (let hour = now - 31 * 86_400_000; hour <= now; hour += 3_600_000) for (const kind of ACTIVITY_KINDS) await store.overview.count(found.id, kind, hour);
  } finally {
    await store.close();
  }
  const members = `${url}/admin/accounts/${encodeURIComponent(account)}/members`;
  const day = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);
  const range = new URLSearchParams({ status: 'A', registered_from: day(215), registered_before: day(200) });
  const bulk = async (action: Record<string, string>) => {
    const { answer } = await previewedBulk(url, cookie, members, range, action);
    if (answer.status !== 303) throw new Error(`the bulk ${action.action} answered ${answer.status}: ${await answer.text()}`);
  };
  await bulk({ action: 'set-expiry', exp_mode: 'S', exp_time: '5', exp_time_type: 'D' });
  try {
    const times: number[] = [];
    let expiring = '';
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const answer = await fetch(`${url}/admin/accounts/${encodeURIComponent(account)}/overview`, { headers: { cookie } });
      const body = await answer.text();
      if (answer.status !== 200 || !body.includes('<svg')) throw new Error(`the overview answered ${answer.status}`);
      times.push(performance.now() - started);
      expiring = /Expiring in the next 7 days: ([^<]+)</.exec(body)?.[1] ?? '?';
    }
    return { overviewMs: median(times), expiring };
  } finally {
    await bulk({ action: 'clear-expiry' });
  }
}
