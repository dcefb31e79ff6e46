import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { COG_VERSION, type CogConfig } from '../shared/models/cog-config.ts';
import { derivedModel, type DerivedModel } from '../shared/models/manifest.ts';
import { REPO_ROOT } from './paths.ts';

const run = promisify(execFile);

/** The repository's Python environment (`npm install` builds it): the manifest's models run in it. */
export const repositoryPython = (): string => {
  const venv = path.join(REPO_ROOT, '.venv', 'bin', 'python');
  return process.env.PROGNOZ_PYTHON ?? (existsSync(venv) ? venv : 'python3');
};

/**
 * A model server as the model's image runs it: Cog's own runtime (coglet starts its worker with
 * the `python` on PATH) serving the predictor in `folder` on `port`.
 */
export const modelServerProcess = (server: {
  python: string;
  folder: string;
  config: Pick<CogConfig, 'predict' | 'concurrency'>;
  port: number;
  weightsDir: string;
}) => ({
  command: server.python,
  args: ['-m', 'cog.server.http', '--host', '127.0.0.1'],
  cwd: server.folder,
  env: {
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

/** The pip arguments of a build, in the order a Cog image installs them. */
export const pipInstallsOf = (
  folder: string,
  config: CogConfig,
): { readonly packages: string[][]; readonly skipped: string[] } => {
  const packages: string[][] = [[`cog==${COG_VERSION}`, ...config.pythonPackages]];
  if (config.pythonRequirements) packages.push(['-r', path.join(folder, config.pythonRequirements)]);
  const skipped: string[] = [];
  for (const line of config.run) {
    const pip = pipLine.exec(line);
    // Only plain arguments: a pip line with shell syntax (&&, pipes, quotes) is not run here.
    if (pip?.[1] && !/[;&|`$<>"'\\]/.test(pip[1])) packages.push(pip[1].trim().split(/\s+/));
    else skipped.push(line);
  }
  return { packages, skipped };
};

/**
 * A Python environment for a predictor brought with `--model`, built from its cog.yaml as a Cog
 * image would be (Cog's runtime, `python_packages`, `python_requirements`, and the `pip install`
 * lines of `run`) and kept under .prognoz/envs by a hash of all of that, so the next start
 * reuses it. Returns its interpreter.
 */
export const ensureEnvironment = async (
  folder: string,
  config: CogConfig,
  log: (line: string) => void,
): Promise<string> => {
  const { packages, skipped } = pipInstallsOf(folder, config);
  const requirements = config.pythonRequirements
    ? readFileSync(path.join(folder, config.pythonRequirements), 'utf8')
    : '';
  const key = createHash('sha256')
    .update(JSON.stringify({ packages, requirements, python: config.pythonVersion }))
    .digest('hex')
    .slice(0, 16);
  const home = path.join(ENVS_DIR, key);
  const python = path.join(home, 'bin', 'python');
  if (existsSync(path.join(home, '.complete'))) return python;
  for (const line of skipped) log(`${folder}: cog.yaml run line not run locally (it sets up an image): ${line}`);
  const base = process.env.PROGNOZ_PYTHON_BOOTSTRAP ?? 'python3';
  const { stdout: version } = await run(base, [
    '-c',
    'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")',
  ]);
  if (version.trim() !== config.pythonVersion) {
    log(
      `${folder}: cog.yaml asks for Python ${config.pythonVersion}; this machine's is ${version.trim()}, which the local run uses`,
    );
  }
  log(`${folder}: building its Python environment from cog.yaml (once; kept in ${path.relative(REPO_ROOT, home)})…`);
  const building = `${home}.building`;
  await rm(building, { recursive: true, force: true });
  await mkdir(ENVS_DIR, { recursive: true });
  await run(base, ['-m', 'venv', building]);
  for (const args of packages) {
    await run(
      path.join(building, 'bin', 'python'),
      ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', ...args],
      { maxBuffer: 64 * 1024 * 1024 },
    );
  }
  await writeFile(path.join(building, '.complete'), new Date().toISOString());
  await rm(home, { recursive: true, force: true });
  await rename(building, home);
  return python;
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
    return derivedModel.parse({ ...described, concurrency: config.concurrency });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`the schema of the predictor in ${folder} could not be derived: ${stderr || String(error)}`);
  }
};
