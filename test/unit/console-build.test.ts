import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { buildConsole } from '../../web/build.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'prognoz-console-test-'));
const build = buildConsole(dir);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The budget for the console's production bundle, gzipped (everything a first visit loads). */
const BUDGET_BYTES = 200 * 1024;

describe('the console’s production build', () => {
  it('is a page, one script and one stylesheet, the two named by their hashes', () => {
    // In any order: the hashes decide how the names sort.
    const names = build.files.map((file) => file.name);
    expect(names).toHaveLength(3);
    expect(names).toEqual(
      expect.arrayContaining([
        'index.html',
        expect.stringMatching(/^assets\/app-[A-Z0-9]+\.js$/),
        expect.stringMatching(/^assets\/app-[A-Z0-9]+\.css$/),
      ]),
    );
    expect(build.files.filter((file) => file.immutable).map((file) => file.name)).not.toContain('index.html');
  });

  it(`loads in under ${BUDGET_BYTES / 1024} KB gzipped`, () => {
    const gzipped = build.files.reduce(
      (sum, file) => sum + gzipSync(readFileSync(path.join(dir, file.name))).length,
      0,
    );
    expect(gzipped).toBeLessThan(BUDGET_BYTES);
  });

  it('has no inline script for the CSP to refuse: the page loads its script by address', () => {
    const page = readFileSync(path.join(dir, 'index.html'), 'utf8');
    expect(page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page).not.toMatch(/\sstyle=|\son[a-z]+=/);
  });
});
