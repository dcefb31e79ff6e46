import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminSetUserPasswordCommand } from '@aws-sdk/client-cognito-identity-provider';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { cognitoOwnerPool } from '../../shared/adapters/owner-pool.ts';
import type { AccountView } from '../../shared/api/account-view.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { asAccountId } from '../../shared/domain/ids.ts';
import { addOwner } from '../../shared/use-cases/add-owner.ts';
import { markExample } from '../../shared/use-cases/mark-example.ts';
import { presentExample } from '../../shared/api/example-view.ts';
import { dynamoModelExamples } from '../../shared/adapters/model-examples.ts';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { launchBrowser, screenshot, watchedPage, type WatchedPage } from '../support/browser.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, createPrediction, flushAuthorizerCache, localDynamo, runtime, untilTerminal } from '../support/api.ts';
import { receiverForFile, startReceiver } from '../support/receiver.ts';
import { ownerCognito } from '../support/owners.ts';
import { png } from '../support/images.ts';
import { fileHostForFile } from '../support/file-host.ts';
import { testCatalog } from '../support/catalog.ts';

/** The console in a real browser (Debian's Chromium, driven by Playwright) against the local runtime. */

const receiver = receiverForFile();
const picturesOrigin = fileHostForFile({
  '/picture.png': { contentType: 'image/png', body: png(40, 20, (x) => [x * 6, 90, 30]) },
});

let browser: Browser;
let watched: WatchedPage;
let page: Page;

const origin = () => runtime().origin;

const signIn = async (target: Page) => {
  const { owner } = runtime();
  await target.goto(`${origin()}/`);
  await target.getByLabel('Email').fill(owner.email);
  await target.getByLabel('Password').fill(owner.password);
  await target.getByRole('button', { name: 'Sign in' }).click();
  await target.getByRole('heading', { name: 'Predictions' }).waitFor();
};

/** An owner's access token, as the console holds it, for the API calls the test makes beside the browser. */
const ownerToken = async (): Promise<string> => {
  const stored = await page.evaluate(() => sessionStorage.getItem('prognoz.session'));
  return (JSON.parse(stored ?? '{}') as { accessToken: string }).accessToken;
};

/** Every form control on the page has a label a screen reader announces. */
const unlabelledControls = (target: Page): Promise<string[]> =>
  target.evaluate<string[]>(`[...document.querySelectorAll('input:not([type=hidden]), select, textarea')]
    .filter((control) => control.labels.length === 0 && !control.getAttribute('aria-label') && !control.closest('label'))
    .map((control) => control.outerHTML.slice(0, 120))`);

/** Run in the page: how far it is wider than the window. */
const SIDEWAYS = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';
/**
 * Run in the page: the elements that reach past the window's right edge outside a box that scrolls
 * on its own, or whose own text spills out of them (a long unbroken word does that without
 * widening its box), to say what to mend.
 */
const WIDEST = `(() => {
  // What a box that scrolls or clips holds can't widen the page (a hidden table head, the page links).
  const clips = (element) => getComputedStyle(element).overflowX !== 'visible';
  const inScroller = (element) => { for (let up = element.parentElement; up; up = up.parentElement) if (clips(up)) return true; return false; };
  const edge = document.documentElement.clientWidth + 1;
  return [...document.querySelectorAll('body *')]
    .filter((element) => !inScroller(element) && (element.getBoundingClientRect().right > edge
      || (!clips(element) && element.clientWidth > 0 && element.scrollWidth > element.clientWidth + 1)))
    .slice(0, 3).map((element) => element.outerHTML.slice(0, 100)).join(' | ');
})()`;

beforeAll(async () => {
  browser = await launchBrowser();
  watched = await watchedPage(browser);
  page = watched.page;
});

afterAll(async () => {
  await browser?.close();
});

describe('the web console', () => {
  it('is served at / with a CSP that admits no inline script and no framing, and the API stays under /api/v1', async () => {
    const response = await fetch(`${origin()}/predictions/p_anything`);
    expect(response.status).toBe(200);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const html = await response.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect((await fetch(`${origin()}/api/v1/account`)).status).toBe(401);
  });

  it('signs the owner in, with a wrong password refused on the form', async () => {
    const { owner } = runtime();
    // Cognito answers a wrong password 400, which the browser logs: that page is not the watched one.
    const refused = await watchedPage(browser);
    await refused.page.goto(`${origin()}/`);
    expect(await unlabelledControls(refused.page)).toEqual([]);
    await screenshot(refused.page, '00-sign-in');
    await refused.page.getByLabel('Email').fill(owner.email);
    await refused.page.getByLabel('Password').fill(`${owner.password}-wrong`);
    await refused.page.getByRole('button', { name: 'Sign in' }).click();
    // The answer comes from the Cognito emulator, a Python process (moto): on a busy host it can take seconds.
    await expect
      .poll(() => refused.page.getByRole('alert').textContent(), { timeout: 10_000 })
      .toContain('Incorrect email or password');
    await refused.page.context().close();
    await signIn(page);
    await expect.poll(() => page.locator('header').textContent(), { timeout: 10_000 }).toContain(owner.email);
  });

  it('lets an owner an administrator added choose their own password at the first sign-in, then shows their account', async () => {
    const accounts = dynamoAccountStore(runtime().tableName, localDynamo());
    const account = asAccountId(crypto.randomUUID());
    await accounts.createAccount(account, Date.now(), { balanceKopecks: 500 });
    const email = `invited-${account}@prognoz.test`;
    const added = await addOwner(
      { pool: cognitoOwnerPool(runtime().ownerPoolId, ownerCognito()), accounts, clock: systemClock },
      { account, email, firstPassword: { kind: 'invitation' } },
    );
    expect(added.ok).toBe(true);
    // What the invitation email would carry: a temporary password.
    const temporary = `Temporary-${account.slice(0, 8)}-1`;
    await ownerCognito().send(
      new AdminSetUserPasswordCommand({
        UserPoolId: runtime().ownerPoolId,
        Username: email,
        Password: temporary,
        Permanent: false,
      }),
    );

    const invited = await watchedPage(browser);
    await invited.page.goto(`${origin()}/account`);
    await invited.page.getByLabel('Email').fill(email);
    await invited.page.getByLabel('Password').fill(temporary);
    await invited.page.getByRole('button', { name: 'Sign in' }).click();
    await invited.page.getByRole('heading', { name: 'Choose your password' }).waitFor();
    await screenshot(invited.page, '00b-new-password');
    await invited.page.getByLabel('New password').fill(`chosen-by-the-owner-${account.slice(0, 8)}`);
    await invited.page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect.poll(() => invited.page.getByTestId('balance').textContent(), { timeout: 10_000 }).toContain('5,00');
    expect(await invited.page.locator('main').textContent()).toContain(account);
    expect(invited.problems).toEqual([]);
    await invited.page.context().close();
  });

  it('runs prognoz/echo from the Playground, shows its output, and the prediction page shows it whole', async () => {
    await page.goto(`${origin()}/models`);
    await screenshot(page, '01-models');
    await page.getByRole('link', { name: 'prognoz/echo' }).click();
    await page.getByRole('tab', { name: 'Playground' }).waitFor();
    expect(await unlabelledControls(page)).toEqual([]);
    // Its fleet: the hardware it runs on, its bounds (locally first min 1, max 1), and the one model server running.
    const fleet = page.getByLabel('Fleet');
    await expect.poll(() => fleet.textContent()).toContain('Running now1');
    const { fleet: manifest } = testCatalog.require('prognoz/echo');
    expect(await fleet.textContent()).toContain(`Hardware${manifest.instanceType}Instances1 to 1`);
    await page.getByLabel('Text', { exact: true }).fill('привет from the playground');
    await page.getByLabel('Repeat').fill('2');
    await page.getByRole('button', { name: 'Run' }).click();
    const output = page.locator('.result');
    await expect
      .poll(() => output.textContent(), { timeout: 30_000 })
      .toContain('привет from the playgroundпривет from the playground');
    await expect.poll(() => output.locator('.status').textContent()).toBe('succeeded');
    await screenshot(page, '02-model-playground');

    // The API tab: the real address and the form's input, ready to run.
    await page.getByRole('tab', { name: 'API' }).click();
    const curl = (await page.getByLabel('curl snippet').textContent()) ?? '';
    expect(curl).toContain(`${origin()}/api/v1/prognoz/echo`);
    expect(curl).toContain('"text":"привет from the playground"');
    expect(curl).toContain('"repeat":2');
    expect(await page.getByLabel('Python snippet').textContent()).toContain(`base_url="${origin()}/api"`);
    await screenshot(page, '03-model-api');
    await page.getByRole('tab', { name: 'Schema' }).click();
    expect(await page.getByLabel('Input JSON Schema').textContent()).toContain('"repeat"');
    await screenshot(page, '04-model-schema');

    await page.getByRole('tab', { name: 'Playground' }).click();
    await page.locator('.result a').click();
    await page.getByRole('heading', { name: /^Prediction / }).waitFor();
    await expect.poll(() => page.getByLabel('Timeline').textContent()).toContain('Succeeded');
    expect(await page.getByLabel('Input', { exact: true }).textContent()).toContain('привет from the playground');
    expect(await page.locator('main').textContent()).toContain('Cost');
    await expect.poll(() => page.locator('main').textContent()).toContain('no webhook');
    await screenshot(page, '05-prediction');

    await page.getByRole('link', { name: 'Predictions' }).click();
    const firstRow = page.locator('tbody tr').first();
    await expect.poll(() => firstRow.textContent()).toContain('prognoz/echo');
    // The filtered list answers slowly (a long account history to filter), after the filter is
    // cleared: its late answer must not replace the list the page asks for now.
    const slowFiltered = /\/predictions\?status=failed/;
    await page.route(slowFiltered, async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await page.getByLabel('Status').selectOption('failed');
    await expect.poll(() => page.url()).toContain('status=failed');
    await page.getByLabel('Status').selectOption('');
    await firstRow.waitFor();
    await page.waitForTimeout(2500);
    expect(await firstRow.textContent()).toContain('prognoz/echo');
    await page.unroute(slowFiltered);
    await screenshot(page, '06-predictions');
  });

  it("shows a model's README, rendered, and the examples an operator marked", async () => {
    const made = await createPrediction({ text: 'пример для страницы' });
    expect((await untilTerminal(made.json.id)).status).toBe('succeeded');
    await markExample(
      {
        store: dynamoPredictionStore(runtime().tableName, localDynamo()),
        outputs: null,
        examples: dynamoModelExamples(runtime().tableName, localDynamo()),
        catalog: testCatalog,
        clock: systemClock,
        copyOf: presentExample(testCatalog),
      },
      'prognoz/echo',
      made.json.id,
    );
    await page.goto(`${origin()}/models/prognoz/echo`);
    await page.getByRole('tab', { name: 'README' }).click();
    const readme = page.getByLabel('README');
    // prognoz/echo has no README.md: its page is made of its description, price and inputs, as a table.
    await expect.poll(() => readme.locator('h1').textContent()).toBe('prognoz/echo');
    expect(await readme.locator('table tbody tr').count()).toBe(
      Object.keys(testCatalog.require('prognoz/echo').input.shape).length,
    );
    await screenshot(page, '04a-model-readme');
    await page.getByRole('tab', { name: 'Examples' }).click();
    await expect
      .poll(() => page.getByRole('list', { name: 'Examples' }).textContent())
      .toContain('пример для страницы');
    await screenshot(page, '04b-model-examples');
  });

  it('shows the files a model returned as what they are: an image shown, audio playable', async () => {
    const made = await call('models/acme/images/predictions', {
      method: 'POST',
      body: { input: { image: `${picturesOrigin()}/picture.png` } },
      headers: { prefer: 'wait=60' },
    });
    await untilTerminal(String(made.json.id), 60_000);
    await page.goto(`${origin()}/predictions/${String(made.json.id)}`);
    const shown = page.getByRole('img', { name: 'Output file output-0.png' });
    await expect
      .poll(() => shown.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth))
      .toBe(40);
    await screenshot(page, '07-output-files');
    const sound = await call('models/acme/file-stream/predictions', {
      method: 'POST',
      body: { input: { count: 1, kind: 'audio' } },
      headers: { prefer: 'wait=60' },
    });
    await untilTerminal(String(sound.json.id), 60_000);
    await page.goto(`${origin()}/predictions/${String(sound.json.id)}`);
    const player = page.getByLabel('Output audio output-0.wav');
    // The player read the file's header: it knows how long the sound is (a quarter of a second).
    await expect
      .poll(() => player.evaluate((audio) => (audio as unknown as { duration: number }).duration), { timeout: 15_000 })
      .toBeCloseTo(0.25, 1);
  });

  it('cancels a running prediction from its page', async () => {
    const created = await createPrediction({ sleep: 30 });
    await page.goto(`${origin()}/predictions/${created.json.id}`);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.locator('.summary .status').textContent(), { timeout: 20_000 }).toBe('canceled');
  });

  it('creates a token shown once, which the API takes until it is revoked (then 401, once the authorizer cache lets go)', async () => {
    await page.goto(`${origin()}/account`);
    await page.getByLabel("New token's name").fill('from the console');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.getByTestId('new-token').textContent()) ?? '';
    expect(token).toMatch(/^pgz_/);
    expect((await call('account', { token })).status).toBe(200);
    const row = page.locator('tr', { hasText: 'from the console' });
    await row.waitFor();
    await screenshot(page, '07-account');
    await row.getByRole('button', { name: /^Revoke/ }).click();
    await expect.poll(() => row.textContent()).toContain('revoked');
    await flushAuthorizerCache();
    expect((await call('account', { token })).status).toBe(401);
  });

  it('sets a monthly limit, and a create beyond it is refused with 402; clearing it lifts that', async () => {
    const token = await ownerToken();
    try {
      await page.goto(`${origin()}/account`);
      await page.getByLabel('Monthly limit, ₽').fill('0');
      await page.getByRole('button', { name: 'Save limit' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      expect((await call<AccountView>('account', { token })).json.monthly_limit).toBe(0);
      const refused = await createPrediction({ text: 'over the limit' });
      expect(refused.status).toBe(402);
      expect(refused.json).toMatchObject({ error: { code: 'monthly_limit_reached' } });
      await page.getByLabel('Monthly limit, ₽').fill('');
      await page.getByRole('button', { name: 'Save limit' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor();
      expect((await createPrediction({ text: 'no limit again' })).status).toBe(201);
    } finally {
      await call('account', { token, method: 'PATCH', body: { monthly_limit: null } });
    }
  });

  it('shows a prediction’s webhook deliveries and redelivers; lists recent deliveries across predictions; reveals the signing secret, the same the API gives', async () => {
    // A receiver that is down until the test brings it up: its delivery fails for good, then is redelivered.
    let up = false;
    const flaky = await startReceiver(() => (up ? 204 : 503));
    try {
      const failing = await createPrediction({ text: 'to a receiver that is down', webhook: `${flaky.url}/down` });
      await untilTerminal(failing.json.id, 30_000);
      await page.goto(`${origin()}/predictions/${failing.json.id}`);
      await page.getByRole('button', { name: 'Redeliver' }).waitFor({ timeout: 30_000 });
      expect(await page.locator('main').textContent()).toContain('dead_lettered');
      up = true;
      await page.getByRole('button', { name: 'Redeliver' }).click();
      await page.getByRole('status').filter({ hasText: 'Queued again' }).waitFor();
      await expect.poll(() => flaky.accepted(failing.json.id).length, { timeout: 20_000 }).toBe(1);
      await page.reload();
      await expect
        .poll(() => page.locator('tbody tr').last().textContent(), { timeout: 10_000 })
        .toContain('delivered');
      await screenshot(page, '05b-prediction-webhooks');
    } finally {
      await flaky.close();
    }

    const created = await createPrediction({ text: 'to a webhook', webhook: `${receiver().url}/console` });
    await untilTerminal(created.json.id, 30_000);
    for (let waited = 0; receiver().accepted(created.json.id).length === 0 && waited < 30_000; waited += 200)
      await sleep(200);

    await page.goto(`${origin()}/account/webhooks`);
    const row = page.locator('tbody tr', { hasText: created.json.id }).first();
    await row.waitFor();
    expect(await row.textContent()).toContain('delivered');
    await page.getByRole('button', { name: 'Reveal secret' }).click();
    const secret = (await page.getByTestId('signing-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    const fromApi = await call<{ key: string }>('webhooks/default/secret');
    expect(secret).toBe(fromApi.json.key);
    await screenshot(page, '08-webhooks');
  });

  it("is readable at 320 px wide (the width WCAG's reflow asks for): no page scrolls sideways", async () => {
    const narrow = await watchedPage(browser, { width: 320, height: 740 });
    await signIn(narrow.page);
    // An input and output with no place to break a line, as a long address or hash has.
    const unbroken = await createPrediction({ text: `https://example.com/${'x'.repeat(120)}` });
    await untilTerminal(unbroken.json.id);
    for (const [name, address] of [
      ['predictions', '/'],
      ['prediction', `/predictions/${unbroken.json.id}`],
      ['models', '/models'],
      ['model', '/models/prognoz/echo'],
      // A brought Cog model's description names its folder: one long unbroken path.
      ['brought-model', '/models/acme/wordcount'],
      ['account', '/account'],
      ['webhooks', '/account/webhooks'],
    ] as const) {
      await narrow.page.goto(`${origin()}${address}`);
      await narrow.page.locator('h1').first().waitFor();
      await narrow.page.waitForLoadState('networkidle');
      await screenshot(narrow.page, `320-${name}`);
      const overflow = await narrow.page.evaluate<number>(SIDEWAYS);
      const widest = await narrow.page.evaluate<string>(WIDEST);
      expect(overflow, `${address} scrolls sideways: ${widest}`).toBeLessThanOrEqual(0);
      expect(widest, `${address} has text spilling out of its box`).toBe('');
    }
    expect(narrow.problems).toEqual([]);
    await narrow.page.context().close();
  });

  it('is usable by keyboard: the sign-in form and the model tabs work without a mouse', async () => {
    const keyboard = await watchedPage(browser);
    const { owner } = runtime();
    await keyboard.page.goto(`${origin()}/`);
    await keyboard.page.getByLabel('Email').waitFor();
    // The email field has focus at start; Tab moves to the password, Enter submits.
    await keyboard.page.keyboard.type(owner.email);
    await keyboard.page.keyboard.press('Tab');
    await keyboard.page.keyboard.type(owner.password);
    await keyboard.page.keyboard.press('Enter');
    await keyboard.page.getByRole('heading', { name: 'Predictions' }).waitFor();
    await keyboard.page.goto(`${origin()}/models/prognoz/echo`);
    await keyboard.page.getByRole('tab', { name: 'Playground' }).focus();
    await keyboard.page.keyboard.press('ArrowRight');
    await expect.poll(() => keyboard.page.getByRole('tab', { name: 'API' }).getAttribute('aria-selected')).toBe('true');
    expect(await keyboard.page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('API');
    expect(keyboard.problems).toEqual([]);
    await keyboard.page.context().close();
  });

  it('showed no console errors on any page', () => {
    expect(watched.problems).toEqual([]);
  });
});
