import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  COG_KEYS,
  COG_VERSION,
  CogConfigError,
  type CogConfig,
  type CogFile,
  type CogIssue,
  type CogKeyPath,
} from '../shared/catalog/cog-config.ts';
import { keepRunsMinutes, MODEL_ENTRYPOINT_ENV, MODEL_ENTRYPOINT_SCRIPT } from '../infra/cog/model-entrypoint.ts';
import { derivedModel, type DerivedModel } from '../shared/catalog/derived-model.ts';
import type { ModelCatalog } from '../shared/catalog/model-catalog.ts';
import { REPO_ROOT } from './paths.ts';
import type { PythonInterpreter } from './python-interpreters.ts';

const run = promisify(execFile);

/** The repository's Python environment (`npm install` builds it): the manifest's models run in it. */
export const repositoryPython = (): string => {
  const venv = path.join(REPO_ROOT, '.venv', 'bin', 'python');
  return process.env.PROGNOZ_PYTHON ?? (existsSync(venv) ? venv : 'python3');
};

/** How long the model servers here keep a run's folder: as long as the longest run of any model may last. */
export const localKeepRunsMinutes = (catalog: Pick<ModelCatalog, 'all'>): number =>
  keepRunsMinutes(Math.max(...catalog.all.map((model) => model.timeouts.runSeconds)));

/**
 * A model server as the model's image runs it: Cog's own runtime (coglet starts its worker with
 * the `python` on PATH) serving the predictor in `folder` on `port`, started by the image's own
 * entrypoint (infra/cog/model-entrypoint.ts): none of this machine's AWS credentials reach the
 * model, and the folders coglet leaves of ended runs are removed once older than any run here
 * may last (coglet keeps them in one folder of the machine, which every model server here shares:
 * localKeepRunsMinutes).
 */
export const modelServerProcess = (server: {
  python: string;
  folder: string;
  config: Pick<CogConfig, 'predict' | 'concurrency' | 'environment'>;
  port: number;
  weightsDir: string;
  /** How long its runs' folders are kept (localKeepRunsMinutes). */
  keepRunsMinutes: number;
}) => ({
  command: '/bin/sh',
  args: [
    '-c',
    MODEL_ENTRYPOINT_SCRIPT,
    'prognoz-model-entrypoint',
    server.python,
    '-m',
    'cog.server.http',
    '--host',
    '127.0.0.1',
  ],
  cwd: server.folder,
  env: {
    // cog.yaml's `environment:` first: none of its names is one of the runtime's own (cog-config.ts).
    ...server.config.environment,
    [MODEL_ENTRYPOINT_ENV.keepRunsMinutes]: String(server.keepRunsMinutes),
    PORT: String(server.port),
    COG_PREDICT_TYPE_STUB: server.config.predict,
    COG_MAX_CONCURRENCY: String(server.config.concurrency),
    // Where the model finds local copies of weights (models/transcribe/weights.py).
    PROGNOZ_WEIGHTS_DIR: server.weightsDir,
    PATH: [path.dirname(server.python), process.env.PATH].filter(Boolean).join(path.delimiter),
    PYTHONUNBUFFERED: '1',
  },
});

/** Where environments of brought models are kept, one per distinct build (reused across starts). */
const ENVS_DIR = path.join(REPO_ROOT, '.prognoz', 'envs');

/** The `run` lines of cog.yaml that install Python packages; the others set up an image (apt, downloads) and are Docker's to run. */
const pipLine = /^\s*(?:python3?\s+-m\s+)?pip3?\s+install\s+(.+)$/;

/** One `pip install` of a build, and the key of cog.yaml it comes from. */
export interface PipInstall {
  readonly args: readonly string[];
  readonly key: CogKeyPath;
}

/** The pip installs of a build, in the order a Cog image runs them. */
export const pipInstallsOf = (
  folder: string,
  config: CogConfig,
): { readonly installs: PipInstall[]; readonly skipped: string[] } => {
  const installs: PipInstall[] = [
    { args: [`cog==${COG_VERSION}`, ...config.pythonPackages], key: COG_KEYS.pythonPackages },
  ];
  if (config.pythonRequirements) {
    installs.push({ args: ['-r', path.join(folder, config.pythonRequirements)], key: COG_KEYS.pythonRequirements });
  }
  const skipped: string[] = [];
  config.run.forEach((line, index) => {
    const pip = pipLine.exec(line);
    // Only plain arguments: a pip line with shell syntax (&&, pipes, quotes) is not run here.
    if (pip?.[1] && !/[;&|`$<>"'\\]/.test(pip[1])) {
      installs.push({ args: pip[1].trim().split(/\s+/), key: [...COG_KEYS.run, index] });
    } else {
      skipped.push(line);
    }
  });
  return { installs, skipped };
};

/** A distribution name as pip compares them (PEP 503): `Foo_Bar.baz` is `foo-bar-baz`. */
const normalizedName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, '-');

/** The distribution a requirement names (`torch>=2.4,<3` names torch), or null for a pip option. */
const requirementName = (spec: string): string | null => {
  const name = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(spec)?.[1];
  return name ? normalizedName(name) : null;
};

/** What pip said went wrong: its ERROR lines, else the end of what it wrote. */
const pipComplaint = (stderr: string): string => {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const errors = lines.filter((line) => /^error\b/i.test(line));
  return (errors.length > 0 ? errors.slice(-4) : lines.slice(-6)).join(' | ');
};

/**
 * A failed `pip install` told at the line of cog.yaml it comes from: the entry of python_packages
 * pip names, the requirements file (with the line of it pip names), or the `run` line.
 */
export const pipFailure = (cog: CogFile, folder: string, install: PipInstall, stderr: string): CogIssue => {
  const complaint = pipComplaint(stderr);
  const named = new Set(complaint.split(/[^A-Za-z0-9._-]+/).map(normalizedName));
  const { pythonPackages, pythonRequirements } = cog.config;
  if (install.key === COG_KEYS.pythonPackages) {
    const index = pythonPackages.findIndex((spec) => named.has(requirementName(spec) ?? ''));
    if (index >= 0) return cog.issue([...COG_KEYS.pythonPackages, index], `pip could not install it: ${complaint}`);
    if (pythonPackages.length === 0) {
      return cog.issue([], `pip could not install Cog ${COG_VERSION}, which runs every model: ${complaint}`);
    }
  }
  if (install.key === COG_KEYS.pythonRequirements && pythonRequirements) {
    const lines = readFileSync(path.join(folder, pythonRequirements), 'utf8').split('\n');
    const line = lines.findIndex((text) => named.has(requirementName(text) ?? ''));
    const where = line >= 0 ? ` (${pythonRequirements} line ${line + 1}: ${lines[line]?.trim()})` : '';
    return cog.issue(install.key, `pip could not install it${where}: ${complaint}`);
  }
  return cog.issue(install.key, `pip could not install it: ${complaint}`);
};

/**
 * A Python environment for a predictor brought with `--model`, built with the interpreter of the
 * Python version its cog.yaml asks for (model-machine.ts chooses it), as a Cog image would be
 * (Cog's runtime, `python_packages`, `python_requirements`, and the `pip install` lines of `run`),
 * and kept under .prognoz/envs by a hash of all of that, so the next start reuses it. Returns its
 * interpreter; a pip install that fails is a CogConfigError at its line of cog.yaml.
 */
export const ensureEnvironment = async (
  cog: CogFile,
  python: PythonInterpreter,
  log: (line: string) => void,
): Promise<string> => {
  const folder = path.dirname(cog.file);
  const { installs, skipped } = pipInstallsOf(folder, cog.config);
  const packages = installs.map((install) => install.args);
  const requirements = cog.config.pythonRequirements
    ? readFileSync(path.join(folder, cog.config.pythonRequirements), 'utf8')
    : '';
  const key = createHash('sha256')
    .update(JSON.stringify({ packages, requirements, python: python.version, interpreter: python.path }))
    .digest('hex')
    .slice(0, 16);
  const home = path.join(ENVS_DIR, key);
  const venvPython = path.join(home, 'bin', 'python');
  if (existsSync(path.join(home, '.complete'))) return venvPython;
  for (const line of skipped) log(`${folder}: cog.yaml run line not run locally (it sets up an image): ${line}`);
  log(
    `${folder}: building its Python ${python.version} environment from cog.yaml (once; kept in ${path.relative(REPO_ROOT, home)})…`,
  );
  const building = `${home}.building`;
  await rm(building, { recursive: true, force: true });
  await mkdir(ENVS_DIR, { recursive: true });
  await run(python.path, ['-m', 'venv', building]);
  for (const install of installs) {
    try {
      await run(
        path.join(building, 'bin', 'python'),
        ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', ...install.args],
        { maxBuffer: 64 * 1024 * 1024 },
      );
    } catch (error) {
      await rm(building, { recursive: true, force: true });
      const stderr = (error as { stderr?: string }).stderr ?? String(error);
      throw new CogConfigError([pipFailure(cog, folder, install, stderr)]);
    }
  }
  await writeFile(path.join(building, '.complete'), new Date().toISOString());
  await rm(home, { recursive: true, force: true });
  await rename(building, home);
  return venvPython;
};

/** The README.md beside a predictor's cog.yaml (`GET /models/{owner}/{name}/readme`), or null. */
const readmeIn = (folder: string): string | null => {
  const file = path.join(folder, 'README.md');
  return existsSync(file) ? readFileSync(file, 'utf8') : null;
};

/**
 * What prognoz derives from a predictor, in the predictor's own environment (its imports must
 * load): Cog's input, enum and output schemas of its signature, and its concurrency.
 */
export const deriveModel = async (python: string, folder: string, config: CogConfig): Promise<DerivedModel> => {
  try {
    const { stdout } = await run(python, ['-m', 'prognoz_cog.describe', folder], {
      env: {
        ...process.env,
        PYTHONPATH: [path.join(REPO_ROOT, 'models'), process.env.PYTHONPATH].filter(Boolean).join(path.delimiter),
      },
      maxBuffer: 16 * 1024 * 1024,
    });
    const described = JSON.parse(stdout) as Record<string, unknown>;
    const readme = readmeIn(folder);
    return derivedModel.parse({
      ...described,
      concurrency: config.concurrency,
      derivedAt: new Date().toISOString(),
      ...(readme === null ? {} : { readme }),
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim() ?? '';
    // describe.py tells its one failure on its last line, after whatever the predictor printed.
    const told = `prognoz_cog.describe: cannot describe the predictor in ${folder}: `;
    const last = stderr.split('\n').at(-1) ?? '';
    throw new PredictorLoadError(folder, last.startsWith(told) ? last.slice(told.length) : stderr || String(error));
  }
};

/** A predictor whose module does not import, or whose signature Cog does not take; `reason` is Python's word for it. */
export class PredictorLoadError extends Error {
  override readonly name = 'PredictorLoadError';

  constructor(
    readonly folder: string,
    readonly reason: string,
  ) {
    super(`the schema of the predictor in ${folder} could not be derived: ${reason}`);
  }
}
