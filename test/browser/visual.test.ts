/**
 * The key pages of both front ends, rendered from fixture data and drawn by a real Chromium,
 * compared with the reference screenshots committed in test/visual/ (pixelmatch, with a small
 * tolerance for anti-aliasing): a change to a page's layout or style fails here. A failed
 * comparison leaves the screenshot and a picture of the differences in
 * test-output/visual/. When a change is meant, `npm run visual:update` writes new references:
 * look at them before committing them.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRegistrationFields } from '../../src/accounts/registration-fields.js';
import { CONSOLE_STYLESHEET } from '../../src/console/views/layout.js';
import { memberPage } from '../../src/console/views/member.js';
import { membersPage } from '../../src/console/views/members.js';
import { PAGES_STYLESHEET } from '../../src/pages/stylesheet.js';
import { profilePage } from '../../src/pages/views/profile.js';
import { registerPage } from '../../src/pages/views/registration.js';
import { signInPage } from '../../src/pages/views/sign-in.js';
import { fixtureMember, fixtureOperator, pageChrome } from '../support/views.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const canRun = existsSync(CHROMIUM) || Boolean(process.env.CI);
const REFERENCES = 'test/visual';
const OUTPUT = 'test-output/visual';
const UPDATE = process.env.UPDATE_VISUALS === '1';
/** Pixels that may differ (anti-aliasing, a font hinted a little differently): a real layout change moves far more. */
const TOLERANCE = 0.002;
const DESKTOP = { width: 1100, height: 760 };
const PHONE = { width: 390, height: 760 };

const fields = parseRegistrationFields('first_name*:text:First name;plan:choice(gold|silver):Plan;terms*:checkbox:I accept the terms');
if (!fields.ok) throw new Error(fields.reason);
const club = { registration: 'open' as const, pageName: 'The Garden Club', pageAccent: '#2f6b3a', registrationFields: fields.fields };
const operator = fixtureOperator('owner');
const members = Array.from({ length: 8 }, (_, i) =>
  fixtureMember({ id: 1042 - i, login: `member${i + 1}`, email: `member${i + 1}@example.com`, status: i === 2 ? 'S' : 'A', regAt: Date.UTC(2026, 2, 1 + i) }),
);

/** Each key page, as a view renders it from fixture data, and the screen it is looked at on. */
const PAGES: Record<string, { html: () => string; viewport: { width: number; height: number } }> = {
  'pages-sign-in': { html: () => signInPage(pageChrome(club), { error: 'Wrong login or password.', login: 'ann.lee' }), viewport: DESKTOP },
  'pages-registration-phone': {
    html: () =>
      registerPage(pageChrome(club, 'fr'), {
        values: { login: 'ann.lee', email: 'not-an-address' },
        errors: { email: 'Ce n’est pas une adresse e-mail.', f_first_name: 'Ce champ est obligatoire.' },
      }),
    viewport: PHONE,
  },
  'pages-profile': {
    html: () =>
      profilePage(pageChrome(club), {
        login: 'ann.lee',
        email: 'ann.lee@example.com',
        profile: new Map([
          ['first_name', 'Ann'],
          ['plan', 'gold'],
        ]),
        notice: 'Your profile is saved.',
      }),
    viewport: DESKTOP,
  },
  'console-members': {
    html: () =>
      membersPage(
        { operator, account: 'garden' },
        {
          account: 'garden',
          role: 'owner',
          form: {},
          columns: ['city'],
          members: members.map((member) => ({ member, profile: new Map([['city', 'Lyon']]) })),
          total: 8,
          at: 1,
        },
      ),
    viewport: DESKTOP,
  },
  'console-member': {
    html: () =>
      memberPage(
        { operator, account: 'garden', notice: { kind: 'ok', text: 'Saved.' } },
        {
          account: 'garden',
          role: 'owner',
          member: fixtureMember(),
          profile: new Map([
            ['city', 'Lyon'],
            ['plan', 'gold'],
          ]),
          lockedUntil: null,
          logins: [],
          history: [],
          sessions: [],
          mailOn: true,
          now: Date.UTC(2026, 10, 28, 12),
        },
      ),
    viewport: DESKTOP,
  },
};

/** The stylesheets the pages link, served as the server serves them. */
const ASSETS = new Map([PAGES_STYLESHEET, CONSOLE_STYLESHEET].map((sheet) => [sheet.path, sheet.text]));

describe.skipIf(!canRun)('the key pages look as their references', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
    mkdirSync(OUTPUT, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it.each(Object.keys(PAGES))('%s', async (name) => {
    const { html, viewport } = PAGES[name]!;
    const page = await browser.newPage({ viewport, deviceScaleFactor: 1 });
    await page.route('http://views.test/**', (route) => {
      const path = new URL(route.request().url()).pathname;
      const asset = ASSETS.get(path);
      return asset === undefined
        ? route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html() })
        : route.fulfill({ status: 200, contentType: 'text/css', body: asset });
    });
    await page.goto('http://views.test/page');
    const shot = PNG.sync.read(await page.screenshot({ fullPage: true, animations: 'disabled', caret: 'hide' }));
    await page.close();
    const referencePath = `${REFERENCES}/${name}.png`;
    if (UPDATE || !existsSync(referencePath)) {
      if (!UPDATE && process.env.CI) throw new Error(`no reference screenshot ${referencePath}: run npm run visual:update and look at it`);
      writeFileSync(referencePath, PNG.sync.write(shot));
      return;
    }
    const reference = PNG.sync.read(readFileSync(referencePath));
    writeFileSync(`${OUTPUT}/${name}.png`, PNG.sync.write(shot));
    // A page that grew or shrank is a layout change, whatever its pixels.
    expect({ width: shot.width, height: shot.height }, `${name}: its size (now in ${OUTPUT}/${name}.png)`).toEqual({
      width: reference.width,
      height: reference.height,
    });
    const diff = new PNG({ width: shot.width, height: shot.height });
    const differing = pixelmatch(reference.data, shot.data, diff.data, shot.width, shot.height, { threshold: 0.1 });
    if (differing > 0) writeFileSync(`${OUTPUT}/${name}.diff.png`, PNG.sync.write(diff));
    expect(differing / (shot.width * shot.height), `${name}: pixels that differ from ${referencePath} (see ${OUTPUT}/${name}.diff.png)`).toBeLessThanOrEqual(
      TOLERANCE,
    );
  });
});
