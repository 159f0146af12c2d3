/**
 * Protecting a site with the member pages behind a real reverse proxy, in a real Chromium, on
 * both engines: nginx (`auth_request`) and Caddy (`forward_auth`), each started here as a
 * process of this test on a loopback port, with its configuration written to a temp folder
 * (the configurations docs/protecting-pages.md shows). A visitor who is not signed in asks for
 * a protected page, is sent to the sign-in page, signs in, and lands on the page asked for;
 * the application behind the proxy is told who the member is (a header forged by the browser
 * is replaced); a level (`?require=plan:gold`) lets a gold member in and keeps a silver one
 * out; a member suspended through the API is sent to sign-in at its next request.
 *
 * Skipped when Chromium, nginx or Caddy is not installed, unless CI is set (.ci/run installs
 * them): then a missing one fails.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, freePort, runCli, startServe, type Served } from '../support/cli.js';
import { createTestDatabase, engineAvailable, ENGINES, type TestDatabase } from '../support/engines.js';
import { post, screenshotPath } from '../support/browser.js';

const CI = Boolean(process.env.CI);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
const CADDY = process.env.CADDY_PATH ?? '/usr/bin/caddy';
const canRun = existsSync(CHROMIUM) || CI;
const hasNginx = existsSync(NGINX) || CI;
const hasCaddy = existsSync(CADDY) || CI;
const PASSWORD = 'proxy-horse-battery';


/** Waits until `condition` holds (a hook cannot use expect.poll). */
async function until(what: string, condition: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A process of this test, its output kept for the failure message. */
interface Running {
  readonly child: ChildProcess;
  readonly origin: string;
  output(): string;
}

async function stop(running: Running | undefined): Promise<void> {
  const child = running?.child;
  // No pid: it never started (the program is missing), and there is nothing to stop.
  if (!child || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exitOf(child);
  clearTimeout(killer);
}

/**
 * Starts a proxy on a free loopback port (`configure` writes its configuration for that port
 * and answers the command), and waits until the member pages answer through it. A port taken
 * meanwhile by another process is given up for another one.
 */
async function startProxy(name: string, configure: (port: number) => { command: string; args: string[]; env?: Record<string, string> }): Promise<Running> {
  let lastOutput = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const { command, args, env } = configure(port);
    const child = spawn(command, args, { env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let failed = false;
    child.on('error', (error) => {
      failed = true;
      output += `\n${String(error)}`;
    });
    const origin = `http://127.0.0.1:${port}`;
    const running = { child, origin, output: () => output };
    const deadline = Date.now() + 30_000;
    while (!failed && child.exitCode === null && child.signalCode === null && Date.now() < deadline) {
      const answer = await fetch(`${origin}/auth/demo/`, { redirect: 'manual', signal: AbortSignal.timeout(5000) }).catch(() => undefined);
      if (answer?.status === 200) return running;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await stop(running);
    lastOutput = output;
    if (!/address already in use/i.test(output)) break;
  }
  throw new Error(`${name} did not start:\n${lastOutput}`);
}

/**
 * nginx's site: the member pages under /auth/, a static folder under / for members, /gold/ for
 * the members whose profile field `plan` is `gold`, and /app/ (an application) told who the
 * member is. This server block is the one docs/protecting-pages.md shows.
 */
function nginxSite(options: { listen: string; serverName: string; memberApi: string; app: string; root: string }): string {
  return `upstream member_api {
    server ${options.memberApi};
}

server {
    listen ${options.listen};
    server_name ${options.serverName};
    root ${options.root};

    # The member pages (sign-in, registration, profile…) on the site's own host.
    location /auth/ {
        proxy_pass http://member_api;
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;
    }

    # Their stylesheet (anyone may read it: the sign-in page needs it).
    location /assets/pages. {
        proxy_pass http://member_api;
    }

    # The check auth_request makes before each protected request: the browser's
    # headers (its cookie) go, the body does not.
    location = /auth/demo/check {
        internal;
        proxy_pass http://member_api;
        proxy_pass_request_body off;
        proxy_set_header Content-Length "";
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }

    # A level: the same check, asking that the profile field plan hold gold.
    # (auth_request takes a path alone: a query string goes in proxy_pass.)
    location = /auth-gold {
        internal;
        proxy_pass http://member_api/auth/demo/check?require=plan:gold;
        proxy_pass_request_body off;
        proxy_set_header Content-Length "";
        proxy_set_header Host $http_host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    }

    # Not signed in (401): to the sign-in page, which sends the member back here.
    location @signin {
        return 302 /auth/demo/?action=ppreturn&url=$scheme://$http_host$request_uri;
    }

    # Members only: everything else on the site. A member's page is kept in no
    # cache (the browser's included: after sign-out, Back asks again).
    location / {
        auth_request /auth/demo/check;
        error_page 401 = @signin;
        add_header Cache-Control "private, no-store" always;
    }

    # Gold members only; a member of another plan gets 403.
    location /gold/ {
        auth_request /auth-gold;
        error_page 401 = @signin;
        add_header Cache-Control "private, no-store" always;
    }

    # An application, told who the member is.
    location /app/ {
        auth_request /auth/demo/check;
        error_page 401 = @signin;
        proxy_hide_header Cache-Control;
        add_header Cache-Control "private, no-store" always;
        auth_request_set $member_id $upstream_http_x_member_id;
        auth_request_set $member_login $upstream_http_x_member_login;
        auth_request_set $member_email $upstream_http_x_member_email;
        auth_request_set $member_plan $upstream_http_x_member_field_plan;
        proxy_pass http://${options.app};
        proxy_set_header Host $http_host;
        proxy_set_header X-Member-Id $member_id;
        proxy_set_header X-Member-Login $member_login;
        proxy_set_header X-Member-Email $member_email;
        proxy_set_header X-Member-Field-Plan $member_plan;
    }
}
`;
}

/** The whole nginx.conf: the site in an http block whose every file is in `dir`. */
function nginxConfig(dir: string, site: string): string {
  const indent = (text: string) => text.replace(/^(?=.)/gm, '    ');
  return `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
events {
    worker_connections 64;
}
http {
    types {
        text/html html;
    }
    default_type application/octet-stream;
    access_log ${dir}/access.log;
    client_body_temp_path ${dir}/client_body;
    proxy_temp_path ${dir}/proxy;
    fastcgi_temp_path ${dir}/fastcgi;
    uwsgi_temp_path ${dir}/uwsgi;
    scgi_temp_path ${dir}/scgi;
${indent(site)}}
`;
}

/**
 * Caddy's site: the member pages under /auth/, the application for members under /, for gold
 * members under /gold/, a 401 sent to sign-in with the address asked for. The one
 * docs/protecting-pages.md shows (there without the global options for the test).
 */
function caddySite(options: { address: string; bind?: string; memberApi: string; app: string }): string {
  return `(member_signin) {
	@signin status 401
	handle_response @signin {
		route {
			rewrite * /auth/demo/?action=ppreturn&url={scheme}://{hostport}{uri}
			redir * {uri} 302
		}
	}
	@refused status 403
	handle_response @refused {
		respond "This page is for members of another plan." 403
	}
}

${options.address} {
${options.bind ? `\tbind ${options.bind}\n\n` : ''}	# The member pages (sign-in, registration, profile…) on the site's own host.
	handle /auth/* {
		reverse_proxy ${options.memberApi}
	}

	# Their stylesheet (anyone may read it: the sign-in page needs it).
	handle /assets/pages.* {
		reverse_proxy ${options.memberApi}
	}

	# Gold members only: the profile field plan must hold gold (a member of another plan gets 403).
	handle /gold/* {
		# A member's page is kept in no cache (after sign-out, Back asks again).
		header {
			Cache-Control "private, no-store"
			defer
		}
		forward_auth ${options.memberApi} {
			uri /auth/demo/check?require=plan:gold
			copy_headers X-Member-Id X-Member-Login X-Member-Email X-Member-Field-Plan
			import member_signin
		}
		reverse_proxy ${options.app}
	}

	# Members only: everything else.
	handle {
		header {
			Cache-Control "private, no-store"
			defer
		}
		forward_auth ${options.memberApi} {
			uri /auth/demo/check
			copy_headers X-Member-Id X-Member-Login X-Member-Email X-Member-Field-Plan
			import member_signin
		}
		reverse_proxy ${options.app}
	}
}
`;
}

function caddyConfig(dir: string, site: string): string {
  return `{
	admin off
	auto_https off
	storage file_system ${dir}/storage
}

${site}`;
}

/** The application behind the proxy: a page naming the member it was told of, each request's headers kept. */
async function startApp(): Promise<{ server: Server; address: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    // The path too, under a name no header can have: a browser's late request (its icon) is told apart.
    seen.push({ ...request.headers, ':path': request.url });
    const gold = (request.url ?? '').startsWith('/gold/');
    const login = String(request.headers['x-member-login'] ?? '').replace(/[<>&"]/g, '');
    response
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(`<!doctype html><title>App</title><h1>${gold ? 'Gold members only' : 'Members only'}</h1><p id="member">${login}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, address: `127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** The same sites as docs/protecting-pages.md shows them: on a public name, member-api on 8080, the application on 3000. */
const DOC_NGINX = { listen: '80', serverName: 'www.example.com', memberApi: '127.0.0.1:8080', app: '127.0.0.1:3000', root: '/var/www/site' };
const DOC_CADDY = { address: 'www.example.com', memberApi: '127.0.0.1:8080', app: '127.0.0.1:3000' };

describe('docs/protecting-pages.md', () => {
  it('shows the configurations these tests run', () => {
    const doc = readFileSync(new URL('../../docs/protecting-pages.md', import.meta.url), 'utf8');
    expect(doc).toContain(nginxSite(DOC_NGINX));
    expect(doc).toContain(caddySite(DOC_CADDY));
  });
});

for (const engine of ENGINES) {
  describe.skipIf(!canRun || !engineAvailable(engine))(`protecting a site behind a reverse proxy [${engine}]`, () => {
    let database: TestDatabase;
    let server: Served;
    let env: Record<string, string>;
    let key: string;
    let browser: Browser;
    let app: Awaited<ReturnType<typeof startApp>>;
    let memberApi: string;
    const dirs: string[] = [];

    const api = (path: string, params: Record<string, string>) => post(`${server.url}/api2/${path}/`, { user: 'demo', api_key: key, ...params });

    /** A member whose profile field plan is `plan`; its id. */
    async function createMember(login: string, plan: string): Promise<string> {
      const created = await api('create', { _login: login, _email: `${login}@example.com`, _password: PASSWORD, plan });
      expect(created).toMatchObject({ result: 'OK' });
      return created.id as string;
    }

    /** Sets the account's --return-origins to `origin`, and waits until the sign-in page (asked directly, on another origin) takes it. */
    async function allowReturnTo(origin: string): Promise<void> {
      const set = await runCli(['account', 'set', 'demo', '--return-origins', origin], env);
      expect(set.code, set.stderr).toBe(0);
      const signInPage = `${server.url}/auth/demo/?action=ppreturn&url=${encodeURIComponent(`${origin}/`)}`;
      await until(`the sign-in page takes ${origin}`, async () => (await (await fetch(signInPage)).text()).includes('name="return"'));
    }

    /**
     * What the application is told when the browser with `cookie` asks `url` with forged
     * X-Member-* headers (asked again while the account's --check-fields may not be read yet).
     */
    async function toldWithForgedHeaders(url: string, cookie: string, plan: string): Promise<IncomingHttpHeaders> {
      const forged = {
        cookie,
        'x-member-login': 'mallory',
        'x-member-id': '999999',
        'x-member-email': 'mallory@example.com',
        'x-member-field-plan': 'platinum',
      };
      await expect
        .poll(
          async () => {
            expect((await fetch(url, { headers: forged })).status).toBe(200);
            return app.seen.at(-1)?.['x-member-field-plan'];
          },
          { timeout: 10_000 },
        )
        .toBe(plan);
      return app.seen.at(-1)!;
    }

    function tempDir(name: string): string {
      const dir = mkdtempSync(join(tmpdir(), `member-api-${name}-`));
      dirs.push(dir);
      return dir;
    }

    /** Opens `url` (protected) not signed in: the sign-in page, which will send the browser back to `url`. */
    async function signIn(page: Page, origin: string, url: string, login: string): Promise<void> {
      const opened = await page.goto(url);
      expect(opened!.status()).toBe(200);
      const signInPage = new URL(page.url());
      expect(`${signInPage.origin}${signInPage.pathname}`).toBe(`${origin}/auth/demo/`);
      expect(signInPage.searchParams.get('action')).toBe('ppreturn');
      expect(await page.locator('h1').textContent()).toBe('Sign in');
      // Its stylesheet comes through the proxy to a visitor not signed in.
      const stylesheet = await page.locator('link[rel=stylesheet]').getAttribute('href');
      expect((await fetch(`${origin}${stylesheet}`)).headers.get('content-type')).toMatch(/^text\/css/);
      await page.fill('input[name=login]', login);
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]');
      await page.waitForURL(url);
    }

    /** The member's session cookie as the browser holds it for `origin`. */
    async function sessionCookie(context: BrowserContext, origin: string): Promise<string> {
      const cookie = (await context.cookies(origin)).find((candidate) => candidate.name === 'member_demo');
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      return `member_demo=${cookie!.value}`;
    }

    /**
     * A member opens a protected page, signs out on the profile page, and presses Back twice:
     * the protected page is asked for again (it was kept in no cache) and sends the browser to
     * sign-in; it is never shown from the browser's cache.
     */
    async function backAfterSignOut(proxy: string, origin: string, asked: string, login: string): Promise<void> {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await signIn(page, origin, asked, login);
        const opened = await page.goto(asked);
        expect(opened!.headers()['cache-control']).toBe('private, no-store');
        await page.goto(`${origin}/auth/demo/`);
        expect(await page.locator('h1').textContent()).toBe('Your profile');
        await Promise.all([page.waitForNavigation(), page.click('form[action$="/logout"] button')]);
        expect(await page.locator('.notice').textContent()).toBe('You are signed out.');
        await page.goBack();
        await page.goBack();
        await page.waitForLoadState();
        expect(new URL(page.url()).pathname).toBe('/auth/demo/');
        expect(await page.locator('h1').textContent()).toBe('Sign in');
        if (engine === 'sqlite') await page.screenshot({ path: screenshotPath(`proxy-back-after-sign-out-${proxy}`, { forDocs: false }) });
      } finally {
        await context.close();
      }
    }

    beforeAll(async () => {
      database = await createTestDatabase(engine);
      env = { DATABASE_URL: database.url };
      // The proxies connect from the loopback: their X-Forwarded-For and X-Forwarded-Proto are believed.
      server = await startServe({ ...env, TRUST_PROXY: '127.0.0.1' });
      key = server.demoKey();
      memberApi = new URL(server.url).host;
      const set = await runCli(['account', 'set', 'demo', '--check-fields', 'plan'], env);
      expect(set.code, set.stderr).toBe(0);
      app = await startApp();
      browser = await chromium.launch({ executablePath: CHROMIUM });
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      server?.child.kill('SIGTERM');
      if (server) await exitOf(server.child);
      await new Promise((resolve) => (app ? app.server.close(resolve) : resolve(undefined)));
      await database?.drop();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    describe.skipIf(!hasNginx)('nginx, auth_request', () => {
      let nginx: Running | undefined;
      let context: BrowserContext;
      let page: Page;
      let ninaId: string;

      beforeAll(async () => {
        const dir = tempDir('nginx');
        // nginx started by root runs its workers as nobody: they must read the site.
        chmodSync(dir, 0o755);
        const root = join(dir, 'site');
        for (const folder of ['secret', 'gold']) mkdirSync(join(root, folder), { recursive: true });
        const html = (title: string) => `<!doctype html><title>Site</title><h1>${title}</h1>\n`;
        writeFileSync(join(root, 'index.html'), html('Members only'));
        writeFileSync(join(root, 'secret', 'page.html'), html('Members only'));
        writeFileSync(join(root, 'gold', 'index.html'), html('Gold members only'));
        nginx = await startProxy('nginx', (port) => {
          writeFileSync(
            join(dir, 'nginx.conf'),
            nginxConfig(dir, nginxSite({ listen: `127.0.0.1:${port}`, serverName: '127.0.0.1', memberApi, app: app.address, root })),
          );
          return { command: NGINX, args: ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')] };
        });
        await allowReturnTo(nginx.origin);
        ninaId = await createMember('nina', 'gold');
        await createMember('noel', 'silver');
        context = await browser.newContext();
        page = await context.newPage();
      }, 120_000);

      afterAll(async () => {
        await context?.close();
        await stop(nginx);
      }, 60_000);

      it('sends a visitor to sign-in, and back to the page asked for once signed in', async () => {
        const asked = `${nginx!.origin}/secret/page.html`;
        await signIn(page, nginx!.origin, asked, 'nina');
        expect(await page.locator('h1').textContent()).toBe('Members only');
        // The member pages' own answers are not protected: the sign-in page opens signed in too.
        expect((await page.goto(`${nginx!.origin}/auth/demo/`))!.status()).toBe(200);
        expect(await page.locator('h1').textContent()).toBe('Your profile');
      }, 60_000);

      it('tells the application behind it who the member is, whatever the browser sent', async () => {
        const opened = await page.goto(`${nginx!.origin}/app/`);
        expect(opened!.status()).toBe(200);
        expect(await page.locator('#member').textContent()).toBe('nina');
        const told = await toldWithForgedHeaders(`${nginx!.origin}/app/forged`, await sessionCookie(context, nginx!.origin), 'gold');
        expect(told).toMatchObject({
          'x-member-id': ninaId,
          'x-member-login': 'nina',
          'x-member-email': 'nina@example.com',
          'x-member-field-plan': 'gold',
        });
        // Without the cookie, the application is not asked at all.
        const before = app.seen.length;
        const anonymous = await fetch(`${nginx!.origin}/app/forged`, { headers: { 'x-member-login': 'mallory' }, redirect: 'manual' });
        expect(anonymous.status).toBe(302);
        expect(app.seen.slice(before).filter((seen) => String(seen[':path']).includes('forged'))).toEqual([]);
      }, 60_000);

      it('lets a level in (?require=plan:gold) and keeps another plan out', async () => {
        const gold = await page.goto(`${nginx!.origin}/gold/`);
        expect(gold!.status()).toBe(200);
        expect(await page.locator('h1').textContent()).toBe('Gold members only');
        // A query string the browser adds does not reach the check.
        expect((await page.goto(`${nginx!.origin}/gold/?require=plan:silver`))!.status()).toBe(200);

        const other = await browser.newContext();
        try {
          const silver = await other.newPage();
          await signIn(silver, nginx!.origin, `${nginx!.origin}/secret/page.html`, 'noel');
          expect((await silver.goto(`${nginx!.origin}/gold/`))!.status()).toBe(403);
          expect((await silver.goto(`${nginx!.origin}/secret/page.html`))!.status()).toBe(200);
          // Not signed in at all: to sign-in, as anywhere else.
          const anonymous = await fetch(`${nginx!.origin}/gold/`, { redirect: 'manual' });
          expect(anonymous.status).toBe(302);
          // nginx makes the address absolute; the page asked for goes in as it is (nginx cannot percent-encode).
          expect(anonymous.headers.get('location')).toBe(`${nginx!.origin}/auth/demo/?action=ppreturn&url=${nginx!.origin}/gold/`);
        } finally {
          await other.close();
        }
      }, 60_000);

      it('shows no protected page from the cache after sign-out (Back asks again)', async () => {
        await backAfterSignOut('nginx', nginx!.origin, `${nginx!.origin}/secret/page.html`, 'noel');
      }, 60_000);

      it('sends a member suspended since to sign-in at its next request', async () => {
        expect((await page.goto(`${nginx!.origin}/secret/page.html`))!.status()).toBe(200);
        expect(await api('update', { find_member_login: 'nina', status: 'S' })).toMatchObject({ result: 'OK', updated: 1 });
        await page.reload();
        await page.waitForURL((url) => url.pathname === '/auth/demo/');
        expect(await page.locator('h1').textContent()).toBe('Sign in');
        await page.fill('input[name=login]', 'nina');
        await page.fill('input[name=password]', PASSWORD);
        await page.click('button[type=submit]');
        await expect.poll(() => page.locator('[role=alert]').textContent()).toContain('suspended');
        expect((await page.goto(`${nginx!.origin}/app/`))!.url()).toContain('/auth/demo/?action=ppreturn');
      }, 60_000);
    });

    describe.skipIf(!hasCaddy)('Caddy, forward_auth', () => {
      let caddy: Running | undefined;
      let context: BrowserContext;
      let page: Page;
      let carlaId: string;

      beforeAll(async () => {
        const dir = tempDir('caddy');
        caddy = await startProxy('caddy', (port) => {
          writeFileSync(
            join(dir, 'Caddyfile'),
            caddyConfig(dir, caddySite({ address: `http://127.0.0.1:${port}`, bind: '127.0.0.1', memberApi, app: app.address })),
          );
          // Caddy writes its autosave and data under these: the temp folder, nothing outside.
          const home = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'data') };
          return {
            command: CADDY,
            args: ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'],
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...home },
          };
        });
        await allowReturnTo(caddy.origin);
        carlaId = await createMember('carla', 'gold');
        await createMember('cyril', 'silver');
        context = await browser.newContext();
        page = await context.newPage();
      }, 120_000);

      afterAll(async () => {
        await context?.close();
        await stop(caddy);
      }, 60_000);

      it('sends a visitor to sign-in, and back to the whole address asked for once signed in', async () => {
        // Caddy's rewrite percent-encodes the address: its query string comes back whole.
        const asked = `${caddy!.origin}/secret/page.html?tab=2&sort=name`;
        await signIn(page, caddy!.origin, asked, 'carla');
        expect(await page.locator('h1').textContent()).toBe('Members only');
        expect(await page.locator('#member').textContent()).toBe('carla');
        expect(app.seen.at(-1)).toMatchObject({ 'x-member-id': carlaId, 'x-member-login': 'carla', 'x-member-email': 'carla@example.com' });
      }, 60_000);

      it('tells the application behind it who the member is, whatever the browser sent', async () => {
        const told = await toldWithForgedHeaders(`${caddy!.origin}/forged`, await sessionCookie(context, caddy!.origin), 'gold');
        expect(told).toMatchObject({
          'x-member-id': carlaId,
          'x-member-login': 'carla',
          'x-member-email': 'carla@example.com',
          'x-member-field-plan': 'gold',
        });
        const before = app.seen.length;
        const anonymous = await fetch(`${caddy!.origin}/forged?a=1&b=2`, { headers: { 'x-member-login': 'mallory' }, redirect: 'manual' });
        expect(anonymous.status).toBe(302);
        const location = new URL(anonymous.headers.get('location')!, caddy!.origin);
        expect(location.pathname).toBe('/auth/demo/');
        expect(location.searchParams.get('url')).toBe(`${caddy!.origin}/forged?a=1&b=2`);
        expect(app.seen.slice(before).filter((seen) => String(seen[':path']).includes('forged'))).toEqual([]);
      }, 60_000);

      it('lets a level in (?require=plan:gold) and keeps another plan out', async () => {
        const gold = await page.goto(`${caddy!.origin}/gold/`);
        expect(gold!.status()).toBe(200);
        expect(await page.locator('h1').textContent()).toBe('Gold members only');
        expect((await page.goto(`${caddy!.origin}/gold/?require=plan:silver`))!.status()).toBe(200);

        const other = await browser.newContext();
        try {
          const silver = await other.newPage();
          await signIn(silver, caddy!.origin, `${caddy!.origin}/secret/page.html`, 'cyril');
          expect((await silver.goto(`${caddy!.origin}/gold/`))!.status()).toBe(403);
          expect(await silver.locator('body').textContent()).toBe('This page is for members of another plan.');
          expect((await silver.goto(`${caddy!.origin}/secret/page.html`))!.status()).toBe(200);
          expect(await silver.locator('#member').textContent()).toBe('cyril');
        } finally {
          await other.close();
        }
      }, 60_000);

      it('shows no protected page from the cache after sign-out (Back asks again)', async () => {
        await backAfterSignOut('caddy', caddy!.origin, `${caddy!.origin}/secret/page.html`, 'cyril');
      }, 60_000);

      it('sends a member suspended since to sign-in at its next request', async () => {
        expect((await page.goto(`${caddy!.origin}/secret/page.html`))!.status()).toBe(200);
        expect(await api('update', { find_member_login: 'carla', status: 'S' })).toMatchObject({ result: 'OK', updated: 1 });
        await page.reload();
        await page.waitForURL((url) => url.pathname === '/auth/demo/');
        expect(await page.locator('h1').textContent()).toBe('Sign in');
        expect(new URL(page.url()).searchParams.get('url')).toBe(`${caddy!.origin}/secret/page.html`);
      }, 60_000);
    });
  });
}
