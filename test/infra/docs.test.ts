import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** Every Markdown file of the repository (as git tracks them): the README, docs/, and the rest. */
const markdownFiles = async (): Promise<string[]> =>
  (await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: ROOT })).stdout
    .split('\n')
    .filter(Boolean);

describe('the docs', () => {
  it('link only to files and headings that exist (remark-validate-links, over every Markdown file)', async () => {
    const files = await markdownFiles();
    expect(files).toContain('README.md');
    expect(files.filter((file) => file.startsWith('docs/')).length).toBeGreaterThan(5);
    const checked = await run(
      path.join(ROOT, 'node_modules', '.bin', 'remark'),
      ['--no-config', '--no-stdout', '--quiet', '--frail', '--use', 'remark-validate-links=repository:false', ...files],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    ).then(
      () => '',
      (error: unknown) => String((error as { stderr?: string }).stderr ?? error),
    );
    expect(checked).toBe('');
  }, 120_000);

  it('name only npm scripts package.json has', async () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
        .scripts,
    );
    const named = (await markdownFiles()).flatMap((file) =>
      [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/\bnpm run ([\w:-]+)/g)].map((match) => ({
        file,
        script: match[1] ?? '',
      })),
    );
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter(({ script }) => !scripts.includes(script))).toEqual([]);
  });

  it('keep the README short and each page of docs/ within 400 lines, each saying first what it covers', async () => {
    const lines = (file: string) => readFileSync(path.join(ROOT, file), 'utf8').split('\n').length;
    expect(lines('README.md')).toBeLessThanOrEqual(300);
    // docs/interface.md is the contract, kept whole as it was given.
    const pages = (await markdownFiles()).filter(
      (file) => /^docs\/[^/]+\.md$/.test(file) && file !== 'docs/interface.md',
    );
    for (const page of pages) {
      expect(lines(page), page).toBeLessThanOrEqual(400);
      const [title, blank, first] = readFileSync(path.join(ROOT, page), 'utf8').split('\n');
      expect(title, page).toMatch(/^# /);
      expect(blank, page).toBe('');
      expect(first?.length, `${page} starts with a paragraph`).toBeGreaterThan(20);
    }
  });
});
