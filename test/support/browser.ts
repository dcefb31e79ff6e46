import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * A real browser for the console's tests: Debian's Chromium (Playwright's own download is not
 * reachable everywhere), driven by Playwright. PROGNOZ_CHROMIUM names another binary.
 */
export const CHROMIUM = process.env.PROGNOZ_CHROMIUM ?? '/usr/bin/chromium';

/** Where the console's screenshots are kept after a run: test artifacts, not committed. */
export const SCREENSHOTS_DIR = path.resolve(import.meta.dirname, '..', '.artifacts', 'console');

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });

export interface WatchedPage {
  readonly page: Page;
  /** Console errors, uncaught exceptions and refused requests (a CSP violation is one) seen so far. */
  readonly problems: string[];
}

/** A page whose console errors and uncaught exceptions are collected, to assert there are none. */
export const watchedPage = async (browser: Browser, viewport = { width: 1280, height: 900 }): Promise<WatchedPage> => {
  const context = await browser.newContext({ viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`exception: ${error.message}`));
  // The console asks before it revokes or rotates: the tests say yes.
  page.on('dialog', (dialog) => void dialog.accept());
  return { page, problems };
};

export const screenshot = async (page: Page, name: string): Promise<string> => {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const file = path.join(SCREENSHOTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
};
