import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareBroughtModels } from '../../local/brought-models.ts';
import { hasNvidiaGpu } from '../../local/model-machine.ts';
import { CogConfigError } from '../../shared/catalog/cog-config.ts';

/**
 * Predictors brought with --model whose cog.yaml asks what this machine cannot give, readied for
 * real (the machine's dpkg and Pythons, a real venv and pip, the predictor imported by
 * describe.py): each is refused with the line of cog.yaml at fault. Not in the global setup's
 * models: none of them can start.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const FIXTURES = path.join('test', 'fixtures', 'cog');

const bring = (name: string) =>
  prepareBroughtModels(
    [{ id: `acme/${name}`, folder: path.join(ROOT, FIXTURES, name), pricePerSecond: '0.01', collections: [] }],
    () => {},
  );

/** The message the predictor is refused with. */
const refusal = async (name: string): Promise<string> => {
  const error = await bring(name).then(
    () => new Error(`${name} was brought`),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CogConfigError);
  return (error as CogConfigError).message;
};

describe('a brought predictor this machine cannot run', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'prognoz-faults-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  /** `npm start` with these flags, which must stop before anything starts: its exit code and what it printed on stderr. */
  const refusedStart = async (...flags: string[]) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', ...flags], {
      cwd: ROOT,
      env: { ...process.env, PORT: '0', PROGNOZ_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    clearTimeout(killer);
    expect(stderr).not.toMatch(/^\s+at /m);
    return { code, stderr };
  };

  it('stops `npm start -- --model` before anything starts, with the line of cog.yaml and no stack trace', async () => {
    const { code, stderr } = await refusedStart('--model', `acme/needs-package=${FIXTURES}/needs-system-package`);
    expect(code).toBe(1);
    expect(stderr).toContain(
      [
        'prognoz: the local runtime did not start:',
        `${FIXTURES}/needs-system-package/cog.yaml:7: build.system_packages[1] "prognoz-no-such-system-package": not installed on this machine (the model's image installs it); install it with: sudo apt-get install prognoz-no-such-system-package`,
      ].join('\n'),
    );
  });

  it('stops `npm start` for an id past its limits, or two ids that read alike in AWS names, naming them', async () => {
    const tooLong = `acme/${'n'.repeat(101)}`;
    const long = await refusedStart('--model', `${tooLong}=${FIXTURES}/function`);
    expect(long.code).toBe(1);
    expect(long.stderr).toContain(`the model id "${tooLong}" has a name of 101 characters, more than 100`);
    const alike = await refusedStart(
      '--model',
      `acme/a.b=${FIXTURES}/function`,
      '--model',
      `acme/a-b=${FIXTURES}/function`,
    );
    expect(alike.code).toBe(1);
    expect(alike.stderr).toContain('the models acme/a.b and acme/a-b would share the workflow name Prognoz-acme-a-b');
  });

  it('asks for a GPU: refused at the gpu line where there is none', async () => {
    if (await hasNvidiaGpu()) {
      await expect(bring('needs-gpu')).resolves.toMatchObject({ pythonOf: expect.any(Map) as Map<string, string> });
    } else {
      expect(await refusal('needs-gpu')).toBe(
        `${FIXTURES}/needs-gpu/cog.yaml:4: build.gpu true: the model needs an NVIDIA GPU, and this machine has none (no /dev/nvidia0, and nvidia-smi lists none); run it on a machine with one, or set gpu: false if it runs on a CPU too`,
      );
    }
  });

  it('asks for a Python no machine has yet: refused at the python_version line, with the versions there are', async () => {
    expect(await refusal('absent-python')).toMatch(
      new RegExp(
        `^${FIXTURES}/absent-python/cog\\.yaml:4: build\\.python_version "3\\.19": this machine has no Python 3\\.19 \\(it has (3\\.\\d+\\.\\d+( \\(without venv\\))?(, )?)+\\), and none of the project's package sources offers one`,
      ),
    );
  });

  it("names a package no index has: refused at that entry's line, with pip's words", async () => {
    expect(await refusal('missing-python-package')).toBe(
      `${FIXTURES}/missing-python-package/cog.yaml:6: build.python_packages[0] "prognoz-no-such-package-0f3a==1.0": pip could not install it: ERROR: Could not find a version that satisfies the requirement prognoz-no-such-package-0f3a==1.0 (from versions: none) | ERROR: No matching distribution found for prognoz-no-such-package-0f3a==1.0`,
    );
  }, 300_000);

  it("has a predictor that does not import: refused at the predict line, with Python's error", async () => {
    expect(await refusal('predict-does-not-import')).toBe(
      `${FIXTURES}/predict-does-not-import/cog.yaml:5: predict "predict.py:Predictor": the predictor does not load: ImportError: failed to import predictor module: No module named 'prognoz_module_nobody_installs'`,
    );
  }, 300_000);

  it('has an input of a type Cog does not serve: refused at the run line, naming the field and the Python type', async () => {
    expect(await refusal('unserved-type')).toBe(
      `${FIXTURES}/unserved-type/cog.yaml:4: run "run.py:Runner": the predictor does not load: ValueError: invalid input field when: unsupported Cog type date`,
    );
  }, 300_000);
});
