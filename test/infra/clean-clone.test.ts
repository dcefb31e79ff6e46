import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);
const MINUTES = 60_000;

/**
 * The repository alone, as a user clones it: nothing beside it (no `../shared`). What the install
 * puts in ignored folders (node_modules, the Python environment, DynamoDB Local) is linked in from
 * this checkout rather than installed again: installing from nothing is what CI does on every run.
 */
const folder = mkdtempSync(path.join(tmpdir(), 'prognoz-clone-'));
const clone = path.join(folder, 'prognoz');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const INSTALLED = ['node_modules', '.venv', path.join('local', 'dynamodb', 'lib')];

describe('a clone of the repository in an empty folder', () => {
  it(
    'passes the fast stage (`npm run test:unit` runs `vitest run --project unit`) and a model test, reading nothing outside it',
    async () => {
      await run('git', ['clone', '--quiet', ROOT, clone]);
      expect(existsSync(path.join(clone, '..', 'shared'))).toBe(false);
      for (const installed of INSTALLED) symlinkSync(path.join(ROOT, installed), path.join(clone, installed));
      // The script's own command: its pre-step would install again (the clone's lockfile is newer than the install).
      // It fails (and so rejects) on any test that fails, or any file that reads what is not there.
      const unit = await run(path.join(clone, 'node_modules', '.bin', 'vitest'), ['run', '--project', 'unit'], {
        cwd: clone,
        env: { ...process.env, NO_COLOR: '1' },
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(unit.stdout).toMatch(/Test Files +\d+ passed/);
      // A model test on the test audio: it is in the repository (test/fixtures/audio).
      const model = await run(
        path.join(clone, '.venv', 'bin', 'python'),
        ['-m', 'pytest', 'transcribe/tests/test_transcribe.py', '-k', 'test_jfk_english or test_two_speakers'],
        { cwd: path.join(clone, 'models'), maxBuffer: 16 * 1024 * 1024 },
      );
      expect(model.stdout).toMatch(/2 passed/);
    },
    10 * MINUTES,
  );
});
