import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A CPython on this machine. */
export interface PythonInterpreter {
  /** The interpreter itself (its sys.executable), not a shim or link in front of it. */
  readonly path: string;
  /** `3.12.1`. */
  readonly version: string;
  /** Whether it can make a virtual environment (Debian ships venv's ensurepip apart, in python3.X-venv). */
  readonly venv: boolean;
}

/** Where interpreters are looked for. */
export interface PythonSearch {
  /** The interpreter the project is set up with (scripts/setup-local.sh): PROGNOZ_PYTHON_BOOTSTRAP, or python3. */
  readonly bootstrap: string;
  /** The folders of PATH, in order. */
  readonly pathDirs: readonly string[];
  /** pyenv's root, whose versions/ holds the interpreters pyenv built (its shims run only the selected one). */
  readonly pyenvRoot: string | null;
}

export const machineSearch = (): PythonSearch => ({
  bootstrap: process.env.PROGNOZ_PYTHON_BOOTSTRAP ?? 'python3',
  pathDirs: (process.env.PATH ?? '').split(path.delimiter).filter(Boolean),
  pyenvRoot: process.env.PYENV_ROOT ?? path.join(homedir(), '.pyenv'),
});

/** `3.12` of `3.12.1` or `3.12`. */
export const minorOf = (version: string): string => version.split('.').slice(0, 2).join('.');

const PROBE = [
  'import sys, importlib.util as u',
  'print(sys.executable)',
  'print("%d.%d.%d" % sys.version_info[:3])',
  'print(int(sys.implementation.name == "cpython" and all(u.find_spec(m) for m in ("venv", "ensurepip"))))',
].join('\n');

/** What `executable` is, or null when it does not run (a pyenv shim of a version not selected, a broken link). */
const probe = async (executable: string): Promise<PythonInterpreter | null> => {
  try {
    const { stdout } = await run(executable, ['-c', PROBE], { timeout: 20_000 });
    const [interpreter, version, venv] = stdout.trim().split('\n');
    return interpreter && version ? { path: interpreter, version, venv: venv === '1' } : null;
  } catch {
    return null;
  }
};

const listing = (folder: string): string[] => {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
};

/** `python3.12` names in `folder` (every `python3.N` when `minor` is null). */
const namedIn = (folder: string, minor: string | null): string[] =>
  listing(folder)
    .filter((name) => (minor === null ? /^python3\.\d+$/.test(name) : name === `python${minor}`))
    .map((name) => path.join(folder, name));

/** The newest patch first: 3.12.10 before 3.12.9. */
const byNewestVersion = (a: string, b: string): number => b.localeCompare(a, 'en', { numeric: true });

/** The executables that may be a Python of `minor` (of any version when null), the project's own first. */
const candidatesFor = (search: PythonSearch, minor: string | null): string[] => {
  const pyenv = search.pyenvRoot ? path.join(search.pyenvRoot, 'versions') : null;
  const pyenvVersions = pyenv
    ? listing(pyenv)
        .filter((name) => (minor === null ? /^3\.\d+\.\d+$/.test(name) : name.startsWith(`${minor}.`)))
        .sort(byNewestVersion)
        .flatMap((name) => namedIn(path.join(pyenv, name, 'bin'), minor))
    : [];
  return [
    ...new Set([
      search.bootstrap,
      ...(minor === null ? search.pathDirs.map((folder) => path.join(folder, 'python3')) : []),
      ...search.pathDirs.flatMap((folder) => namedIn(folder, minor)),
      ...pyenvVersions,
    ]),
  ];
};

const distinct = (found: readonly (PythonInterpreter | null)[]): PythonInterpreter[] => {
  const seen = new Map<string, PythonInterpreter>();
  for (const interpreter of found)
    if (interpreter && !seen.has(interpreter.path)) seen.set(interpreter.path, interpreter);
  return [...seen.values()];
};

/** The interpreters of Python `minor` (`3.12`) on this machine, in the order of preference. */
export const interpretersOf = async (minor: string, search: PythonSearch): Promise<PythonInterpreter[]> =>
  distinct(await Promise.all(candidatesFor(search, minor).map(probe))).filter(
    (interpreter) => minorOf(interpreter.version) === minor,
  );

/** Every Python 3 on this machine, for telling someone which versions there are. */
export const allInterpreters = async (search: PythonSearch): Promise<PythonInterpreter[]> =>
  distinct(await Promise.all(candidatesFor(search, null).map(probe))).sort((a, b) =>
    byNewestVersion(b.version, a.version),
  );
