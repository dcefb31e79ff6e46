import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { debianPackageName, missingDebianPackages } from '../../local/debian-packages.ts';
import {
  choosePython,
  machineIssues,
  CPU_CONCURRENCY,
  localConcurrencyOf,
  machineProbes,
  readyMachineFor,
  type MachineProbes,
} from '../../local/model-machine.ts';
import { interpretersOf, machineSearch, minorOf, type PythonInterpreter } from '../../local/python-interpreters.ts';
import { CogConfigError, parseCogFile, type CogIssue } from '../../shared/catalog/cog-config.ts';

/** The machine's own Python 3 (the one the project is set up with): its version and its executable. */
const [realExecutable = '', realVersion = ''] = execFileSync(
  process.env.PROGNOZ_PYTHON_BOOTSTRAP ?? 'python3',
  ['-c', 'import sys; print(sys.executable); print("%d.%d.%d" % sys.version_info[:3])'],
  { encoding: 'utf8' },
)
  .trim()
  .split('\n');
const realMinor = minorOf(realVersion);

const scratch = mkdtempSync(path.join(tmpdir(), 'prognoz-machine-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A folder of PATH holding only `python<minor>`, the machine's Python under that name. */
const binWith = (name: string, minors: readonly string[]): string => {
  const bin = path.join(scratch, name);
  mkdirSync(bin, { recursive: true });
  for (const minor of minors) symlinkSync(realExecutable, path.join(bin, `python${minor}`));
  return bin;
};

const cogFile = (yaml: string) => parseCogFile(yaml, path.join(scratch, 'cog.yaml'));

const probes = (overrides: Partial<MachineProbes>): MachineProbes => ({
  ...machineProbes,
  hasNvidiaGpu: () => Promise.resolve(false),
  missingDebianPackages: () => Promise.resolve([]),
  debianCandidate: () => Promise.resolve(null),
  mayInstallDebianPackages: () => Promise.resolve(false),
  installDebianPackages: () => Promise.reject(new Error('not to be installed')),
  ...overrides,
});

const lines: string[] = [];
const log = (line: string) => lines.push(line);

describe('what a brought model asks of the machine', () => {
  it('a GPU: refused, at the gpu line, on a machine without one', async () => {
    const cog = cogFile('build:\n  python_version: "3.11"\n  gpu: true\npredict: "p.py:P"\n');
    expect(await machineIssues(cog, log, probes({}))).toEqual([
      expect.objectContaining({
        line: 3,
        subject: 'build.gpu true',
        problem: expect.stringMatching(/^the model needs an NVIDIA GPU, and this machine has none/) as string,
      }),
    ]);
    expect(await machineIssues(cog, log, probes({ hasNvidiaGpu: () => Promise.resolve(true) }))).toEqual([]);
  });

  it('system packages: each missing one at its line, with the apt-get that installs it', async () => {
    const cog = cogFile('build:\n  system_packages:\n    - coreutils\n    - libfoo=1.2\npredict: "p.py:P"\n');
    const issues = await machineIssues(
      cog,
      log,
      probes({ missingDebianPackages: (names) => Promise.resolve(names.filter((name) => name !== 'coreutils')) }),
    );
    expect(issues).toEqual([
      expect.objectContaining({
        line: 4,
        subject: 'build.system_packages[1] "libfoo=1.2"',
        problem: expect.stringMatching(/not installed on this machine .*: sudo apt-get install libfoo=1\.2$/) as string,
      }),
    ]);
  });

  it('system packages on a machine without dpkg: told in the log, at their line, not refused', async () => {
    const cog = cogFile('build:\n  system_packages: [ffmpeg]\npredict: "p.py:P"\n');
    lines.length = 0;
    expect(await machineIssues(cog, log, probes({ missingDebianPackages: () => Promise.resolve(null) }))).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/cog\.yaml:2: build\.system_packages: this machine has no dpkg/)]);
  });

  it("dpkg tells the machine's installed packages from the missing ones", async () => {
    expect(debianPackageName('ffmpeg=7:5.1.6-0+deb12u1')).toBe('ffmpeg');
    expect(debianPackageName('ffmpeg/bookworm')).toBe('ffmpeg');
    expect(await missingDebianPackages(['coreutils', 'prognoz-no-such-system-package'])).toEqual([
      'prognoz-no-such-system-package',
    ]);
  });
});

describe('the Python a brought model asks for', () => {
  const search = (bin: string | null) => () => ({
    bootstrap: path.join(scratch, 'no-such-python'),
    pathDirs: bin ? [bin] : [],
    pyenvRoot: null,
  });
  const isInterpreter = (chosen: PythonInterpreter | CogIssue): chosen is PythonInterpreter => 'venv' in chosen;

  it("is this machine's interpreter of that minor version", async () => {
    const found = await interpretersOf(realMinor, machineSearch());
    expect(found.map((interpreter) => minorOf(interpreter.version))).toContain(realMinor);
    const chosen = await choosePython(cogFile(`build:\n  python_version: "${realMinor}"\npredict: "p.py:P"\n`), log, {
      install: true,
      probes: probes({ pythonSearch: search(binWith('own', [realMinor])) }),
    });
    expect(isInterpreter(chosen) && chosen.version).toBe(realVersion);
  });

  it('is never one of another minor version: an error at the python_version line, naming the versions there are', async () => {
    const chosen = await choosePython(cogFile('build:\n  python_version: "3.19"\npredict: "p.py:P"\n'), log, {
      install: true,
      probes: probes({ pythonSearch: search(binWith('other', [realMinor])) }),
    });
    expect(chosen).toMatchObject({
      line: 2,
      subject: 'build.python_version "3.19"',
      problem: `this machine has no Python 3.19 (it has ${realVersion}), and none of the project's package sources offers one; install Python 3.19 (pyenv builds any), or set python_version to a version this machine has`,
    });
  });

  it('is one another patch release of, told in the log (a patch release keeps the language and the ABI)', async () => {
    lines.length = 0;
    const wanted = `${realMinor}.99`;
    const chosen = await choosePython(cogFile(`build:\n  python_version: "${wanted}"\npredict: "p.py:P"\n`), log, {
      install: true,
      probes: probes({ pythonSearch: search(binWith('patch', [realMinor])) }),
    });
    expect(isInterpreter(chosen) && chosen.version).toBe(realVersion);
    expect(lines).toEqual([
      expect.stringContaining(
        `cog.yaml:2: build.python_version "${wanted}": this machine has Python ${realVersion}, not ${wanted}`,
      ),
    ]);
  });

  it("is installed from Debian's packages where they offer it and prognoz may (root, apt-get)", async () => {
    const bin = path.join(scratch, 'installed');
    mkdirSync(bin, { recursive: true });
    const installed: string[][] = [];
    const chosen = await choosePython(cogFile(`build:\n  python_version: "${realMinor}"\npredict: "p.py:P"\n`), log, {
      install: true,
      probes: probes({
        pythonSearch: search(bin),
        debianCandidate: (name) => Promise.resolve(`${name}-1+deb12u1`),
        mayInstallDebianPackages: () => Promise.resolve(true),
        installDebianPackages: (names) => {
          installed.push([...names]);
          symlinkSync(realExecutable, path.join(bin, `python${realMinor}`));
          return Promise.resolve();
        },
      }),
    });
    expect(installed).toEqual([[`python${realMinor}`, `python${realMinor}-venv`]]);
    expect(isInterpreter(chosen) && chosen.version).toBe(realVersion);
  });

  it("is the apt-get to run, where Debian's packages offer it and prognoz may not install", async () => {
    const chosen = await choosePython(cogFile('build:\n  python_version: "3.19"\npredict: "p.py:P"\n'), log, {
      install: true,
      probes: probes({ pythonSearch: search(null), debianCandidate: () => Promise.resolve('3.19.0-1') }),
    });
    expect(chosen).toMatchObject({
      line: 2,
      problem:
        "this machine has no Python 3.19 (it has none); Debian's packages offer it: install it with sudo apt-get install python3.19 python3.19-venv",
    });
  });
});

describe('readying the machine for a brought model', () => {
  it('tells every line the machine cannot meet at once, in the order of the file, and installs nothing then', async () => {
    const cog = cogFile(
      'build:\n  gpu: true\n  python_version: "3.19"\n  system_packages:\n    - prognoz-no-such-system-package\npredict: "p.py:P"\n',
    );
    const error = await readyMachineFor(
      cog,
      log,
      probes({
        pythonSearch: () => ({ bootstrap: path.join(scratch, 'none'), pathDirs: [], pyenvRoot: null }),
        missingDebianPackages,
        debianCandidate: () => Promise.resolve('3.19.0-1'),
        mayInstallDebianPackages: () => Promise.resolve(true),
      }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CogConfigError);
    expect((error as CogConfigError).issues.map((issue) => issue.line)).toEqual([2, 3, 5]);
    expect((error as Error).message.split('\n')).toHaveLength(3);
    expect((error as Error).message).toContain(
      "Debian's packages offer it: install it with sudo apt-get install python3.19",
    );
  });
});

describe('what a model server takes at once on this machine', () => {
  const gpu = (has: boolean) => ({ hasNvidiaGpu: () => Promise.resolve(has) });

  it("is its cog.yaml's, but a GPU predictor's on a machine without one is the CPU's", async () => {
    expect(await localConcurrencyOf({ gpu: true, concurrency: 16 }, gpu(true))).toBe(16);
    expect(await localConcurrencyOf({ gpu: true, concurrency: 16 }, gpu(false))).toBe(CPU_CONCURRENCY);
    expect(await localConcurrencyOf({ gpu: true, concurrency: 1 }, gpu(false))).toBe(1);
    expect(await localConcurrencyOf({ gpu: false, concurrency: 8 }, gpu(false))).toBe(8);
  });
});
