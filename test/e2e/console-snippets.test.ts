import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { snippet, type SnippetLanguage } from '../../web/console/src/snippets.ts';
import { runtime } from '../support/api.ts';

/** The API tab's snippets, run as a user would paste them: curl in bash, Replicate's JavaScript and Python clients. */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

// A quote of each kind and a word beyond ASCII: what breaks a snippet that quotes carelessly.
const INPUT = { text: `it's "quoted" — привет`, repeat: 2 };
const EXPECTED = INPUT.text.repeat(2);

const commandOf = (language: SnippetLanguage, code: string): [string, string[]] => {
  switch (language) {
    case 'curl':
      return ['bash', ['-c', code]];
    case 'javascript':
      return [process.execPath, ['--input-type=module', '-e', code]];
    case 'python':
      return [path.join(ROOT, '.venv', 'bin', 'python'), ['-c', code]];
  }
};

describe('the snippets of the API tab', () => {
  for (const language of ['curl', 'javascript', 'python'] as const) {
    it(`${language}: runs prognoz/echo against the service with the Playground’s input`, async () => {
      const code = snippet(language, { apiBase: `${runtime().origin}/api/v1`, model: 'prognoz/echo', input: INPUT });
      const [command, args] = commandOf(language, code);
      const { stdout } = await run(command, args, {
        cwd: ROOT,
        env: { ...process.env, PROGNOZ_API_TOKEN: runtime().apiToken },
        timeout: 60_000,
      });
      // curl prints the prediction as JSON, the clients its output as JavaScript and Python print
      // objects: each escapes some quotes its own way.
      expect(stdout.replaceAll('\\', '')).toContain(EXPECTED);
    });
  }
});
