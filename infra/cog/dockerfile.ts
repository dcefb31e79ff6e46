import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  COG_KEYS,
  COG_VERSION,
  CogConfigError,
  predictKeyOf,
  PYTHON_VERSION,
  type CogConfig,
  type CogKeyPath,
} from '../../shared/catalog/cog-config.ts';
import { readCogFile } from '../../shared/adapters/cog-files.ts';
import { keyLabel } from '../../shared/catalog/cog-config-error.ts';
import { MODEL_ENTRYPOINT_COMMAND, modelEntrypointInstructions } from './model-entrypoint.ts';

export { COG_VERSION };

/**
 * uv, used only in a throwaway build stage of GPU images to fetch a prebuilt CPython of the
 * requested version (python-build-standalone). Pinned like everything else an image is built from.
 */
export const UV_VERSION = '0.13.9';

/** The base of GPU images: CUDA 12 and cuDNN 9 runtime libraries (what CTranslate2 and most wheels need). */
export const CUDA_BASE_IMAGE = 'nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04';

/** Where Cog keeps what it generates for a predictor folder; the generated Dockerfile goes there too. */
export const COG_DIR = '.cog';
/** The generated Dockerfile, relative to its predictor folder (which is the build context). */
export const COG_DOCKERFILE = `${COG_DIR}/prognoz.Dockerfile`;

/** The port coglet listens on, on every address of its container (the worker reaches it over Docker's bridge). */
export const MODEL_PORT = 5000;

/**
 * The folder both containers of a task mount (the worker downloads file inputs there, the model
 * opens them by path). Both images create it world-writable and sticky, like /tmp: Docker gives a
 * new volume the mode of the mount point of the first container to mount it, so the task's volume
 * is writable by the worker and readable by the model whichever container that is.
 */
export const MODEL_INPUTS_DIR = '/srv/prognoz/inputs';

/**
 * The unprivileged user coglet runs as, named for people and given to Docker by number: USER and
 * --chown by number do not read the image's /etc/passwd, which a build step may have rewritten.
 */
export const MODEL_USER = 'model';
export const MODEL_UID = 10001;

/**
 * Never sent to a model's image build (the context is its predictor folder): caches, virtual
 * environments, version control, and the tests, which serve no prediction (and in a model's
 * repository often hold sample media). Cog's own generated files stay out, all but the Dockerfile
 * prognoz generates there. A predictor's own `.dockerignore` is honoured as well.
 */
export const PREDICTOR_EXCLUDES: readonly string[] = [
  `${COG_DIR}/*`,
  `!${COG_DOCKERFILE}`,
  '.git',
  '.venv',
  'venv',
  'tests',
  '**/__pycache__',
  '**/*.pyc',
  '**/.pytest_cache',
  '**/.mypy_cache',
  '**/.ruff_cache',
];

export interface CogDockerfileOptions {
  /** The base of CPU images, by Python version. Default: `python:<version>-slim`. */
  readonly cpuBaseImage?: (pythonVersion: string) => string;
  /** The base of GPU images. Default: CUDA_BASE_IMAGE. */
  readonly gpuBaseImage?: string;
}

/** A value of cog.yaml that no image can be built from safely, named by its key (writeCogDockerfile gives it its line). */
export class CogDockerfileError extends Error {
  override readonly name = 'CogDockerfileError';

  constructor(
    readonly key: CogKeyPath,
    readonly problem: string,
    value?: string,
  ) {
    super(`${keyLabel(key)}: ${problem}${value === undefined ? '' : `, not ${JSON.stringify(value)}`}`);
  }
}

/** Words a shell takes as they are; anything else is single-quoted. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

const noNewline = (value: string, key: CogKeyPath): string => {
  if (/[\r\n]/.test(value)) throw new CogDockerfileError(key, 'must be one line', value);
  if (value.trim() === '') throw new CogDockerfileError(key, 'must not be empty');
  return value;
};

/** A value that may be empty, but must be one line. */
const noNewlineIn = (value: string, key: CogKeyPath): string => {
  if (/[\r\n]/.test(value)) throw new CogDockerfileError(key, 'must be one line', value);
  return value;
};

/** One shell word, quoted unless it needs none. */
export const shellWord = (value: string): string =>
  PLAIN_WORD.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;

/** A value of an ENV instruction: double-quoted, with the characters Docker would read escaped. */
const envValue = (value: string): string => `"${value.replace(/[\\"$]/g, (c) => `\\${c}`)}"`;

/** A JSON-form (exec-form) instruction argument list: no shell, nothing to escape but JSON's own. */
const execForm = (args: readonly string[]): string => JSON.stringify(args).replace(/","/g, '", "');

/** The requirements file's path inside the folder, or an error when it would leave the folder. */
const requirementsPath = (file: string): string => {
  noNewline(file, COG_KEYS.pythonRequirements);
  const normalized = path.posix.normalize(file.replace(/\\/g, '/'));
  if (path.posix.isAbsolute(normalized) || normalized === '..' || normalized.startsWith('../')) {
    throw new CogDockerfileError(COG_KEYS.pythonRequirements, 'must be a file inside the predictor folder', file);
  }
  return normalized;
};

const RUN_HEREDOC_END = 'PROGNOZ_RUN_END';

/**
 * What a line must not have to follow `RUN ` as it is: a line break or a trailing backslash (the
 * next instruction would join it), a here-document marker (BuildKit would take the instructions
 * after it, prognoz's entrypoint among them, as the document), or a leading `-` or `[` (RUN's own
 * flags, such as --network or --mount, or its exec form).
 */
const NOT_A_PLAIN_LINE = /\n|\\$|<<|^\s*[-[]/;

/** One `run` entry of cog.yaml as a RUN instruction: a plain line as it is, anything else as a script. */
const runInstruction = (command: string, index: number): string => {
  const key = [...COG_KEYS.run, index];
  if (command.trim() === '') throw new CogDockerfileError(key, 'must not be empty');
  const text = command.replace(/\r\n?/g, '\n').replace(/\n+$/, '');
  if (!NOT_A_PLAIN_LINE.test(text)) return `RUN ${text}`;
  if (text.split('\n').some((line) => line.trim() === RUN_HEREDOC_END)) {
    throw new CogDockerfileError(key, `must not contain a line "${RUN_HEREDOC_END}"`);
  }
  return `RUN <<'${RUN_HEREDOC_END}'\nset -e\n${text}\n${RUN_HEREDOC_END}`;
};

/**
 * The Dockerfile for one Cog predictor folder (the build context), built the way `cog build`
 * builds it: a CUDA base with the requested Python for `gpu: true`, else the official slim Python
 * image; `system_packages` from apt; a virtual environment with Cog's runtime, `python_packages`
 * and `python_requirements`; each `run` command; then the folder in /src and coglet serving
 * `predict` on port 5000 of every address of its container, as an unprivileged user, started by
 * the entrypoint that removes the task's AWS credentials (model-entrypoint.ts).
 */
export const cogDockerfile = (config: CogConfig, options: CogDockerfileOptions = {}): string => {
  const python = noNewline(config.pythonVersion, COG_KEYS.pythonVersion);
  if (!PYTHON_VERSION.test(python))
    throw new CogDockerfileError(COG_KEYS.pythonVersion, 'must be 3.x or 3.x.y', python);
  const predict = noNewline(config.predict, predictKeyOf(config));
  if (!Number.isInteger(config.concurrency) || config.concurrency < 1) {
    throw new CogDockerfileError(
      COG_KEYS.concurrency,
      'must be a whole number of at least 1',
      String(config.concurrency),
    );
  }
  const systemPackages = config.systemPackages.map((name, index) =>
    shellWord(noNewline(name, [...COG_KEYS.systemPackages, index])),
  );
  // Cog writes python_packages into a requirements file, so an entry may be a pip option with its
  // value ("--extra-index-url <url>"): such an entry is split into its words.
  const pythonPackages = config.pythonPackages.flatMap((spec, index) => {
    const entry = noNewline(spec, [...COG_KEYS.pythonPackages, index]).trim();
    return entry.startsWith('-') ? entry.split(/\s+/) : [entry];
  });
  const requirements = config.pythonRequirements === null ? null : requirementsPath(config.pythonRequirements);

  const lines: string[] = [
    '# syntax=docker/dockerfile:1',
    `# Generated by prognoz from cog.yaml (infra/cog/dockerfile.ts); do not edit. Build context: the predictor folder.`,
  ];

  if (config.gpu) {
    // A prebuilt CPython (python-build-standalone, through uv) is the same for every version from
    // 3.8 on, needs nothing of the base but glibc, and builds in seconds: no PPA, no compiler.
    lines.push(
      '',
      `FROM python:3.12-slim AS python`,
      'ENV UV_PYTHON_INSTALL_DIR=/opt/python UV_MANAGED_PYTHON=1 UV_NO_CACHE=1',
      `RUN pip install --no-cache-dir uv==${UV_VERSION} \\`,
      `    && uv python install --no-bin ${python} \\`,
      `    && "$(uv python find ${python})" -m venv /opt/venv`,
      '',
      `FROM ${options.gpuBaseImage ?? CUDA_BASE_IMAGE}`,
      'COPY --from=python /opt/python /opt/python',
      'COPY --from=python /opt/venv /opt/venv',
    );
  } else {
    lines.push('', `FROM ${options.cpuBaseImage?.(python) ?? `python:${python}-slim`}`, 'RUN python -m venv /opt/venv');
  }
  // No pip cache in any layer, the build commands' own `pip install`s included.
  lines.push('ENV PATH="/opt/venv/bin:$PATH" VIRTUAL_ENV=/opt/venv PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1');
  // cog.yaml's `environment:`, as Cog writes it: early, so that the build's commands see it too.
  const environment = Object.entries(config.environment).sort(([a], [b]) => a.localeCompare(b));
  if (environment.length > 0)
    lines.push(
      `ENV ${environment.map(([name, value]) => `${name}=${envValue(noNewlineIn(value, COG_KEYS.environment))}`).join(' ')}`,
    );

  // ca-certificates: the CUDA image may lack it, and setup() often downloads weights over TLS.
  const aptPackages = config.gpu ? ['ca-certificates', ...systemPackages] : systemPackages;
  if (aptPackages.length > 0) {
    lines.push(
      'RUN apt-get update \\',
      `    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${aptPackages.join(' ')} \\`,
      '    && rm -rf /var/lib/apt/lists/*',
    );
  }

  const pipArgs = ['pip', 'install', '--no-cache-dir', `cog==${COG_VERSION}`, ...pythonPackages];
  if (requirements !== null) {
    // The requirements alone first, so that a change to the code keeps the installed layer.
    lines.push(`COPY ${execForm([requirements, '/tmp/cog/requirements.txt'])}`);
    pipArgs.push('-r', '/tmp/cog/requirements.txt');
  }
  lines.push(`RUN ${execForm(pipArgs)}`);

  config.run.forEach((command, index) => lines.push(runInstruction(command, index)));

  lines.push(
    `RUN groupadd --system --gid ${MODEL_UID} ${MODEL_USER} \\`,
    `    && useradd --system --uid ${MODEL_UID} --gid ${MODEL_UID} --create-home --shell /usr/sbin/nologin ${MODEL_USER} \\`,
    `    && install -d -m 1777 ${MODEL_INPUTS_DIR}`,
    `COPY --chown=${MODEL_UID}:${MODEL_UID} . /src`,
    'WORKDIR /src',
    `ENV COG_PREDICT_TYPE_STUB=${envValue(predict)} COG_MAX_CONCURRENCY=${config.concurrency} PORT=${MODEL_PORT} PYTHONUNBUFFERED=1`,
    ...modelEntrypointInstructions(),
    `USER ${MODEL_UID}:${MODEL_UID}`,
    // Exec form, both: Docker runs the entrypoint itself (no /bin/sh -c around it), and a command
    // given at run time (ECS's `command`) replaces CMD only, so it too starts through the entrypoint.
    `ENTRYPOINT ${execForm(MODEL_ENTRYPOINT_COMMAND)}`,
    // coglet binds to --host and reads the port from PORT (cog.server.http); every address of its
    // container, because the worker reaches it from its own container over Docker's bridge.
    `CMD ${execForm(['python', '-m', 'cog.server.http', '--host', '0.0.0.0'])}`,
    '',
  );
  return lines.join('\n');
};

/**
 * Writes the Dockerfile of the predictor in `folder` to `<folder>/.cog/prognoz.Dockerfile` (left
 * as it is when unchanged) and returns its name relative to the folder, for a build whose context
 * is the folder.
 */
export const writeCogDockerfile = (folder: string, options: CogDockerfileOptions = {}): string => {
  const cog = readCogFile(folder);
  let text: string;
  try {
    text = cogDockerfile(cog.config, options);
  } catch (error) {
    if (error instanceof CogDockerfileError) throw new CogConfigError([cog.issue(error.key, error.problem)]);
    throw error;
  }
  const file = path.join(folder, COG_DOCKERFILE);
  let current: string | null = null;
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // not written yet
  }
  if (current !== text) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return COG_DOCKERFILE;
};
