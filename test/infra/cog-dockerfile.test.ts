import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  COG_DOCKERFILE,
  COG_VERSION,
  CUDA_BASE_IMAGE,
  cogDockerfile,
  MODEL_INPUTS_DIR,
  MODEL_UID,
  writeCogDockerfile,
} from '../../infra/cog/dockerfile.ts';
import {
  ENTRYPOINT_SHELL_IMAGE,
  MODEL_ENTRYPOINT,
  MODEL_ENTRYPOINT_COMMAND,
  MODEL_ENTRYPOINT_SCRIPT,
  MODEL_ENTRYPOINT_SHELL,
} from '../../infra/cog/model-entrypoint.ts';
import { type CogConfig } from '../../shared/catalog/cog-config.ts';
import { readCogConfig } from '../../shared/adapters/cog-files.ts';
import { copiedSources } from '../support/dockerfile.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'cog');

const config = (overrides: Partial<CogConfig> = {}): CogConfig => ({
  gpu: false,
  pythonVersion: '3.11',
  systemPackages: [],
  pythonPackages: [],
  pythonRequirements: null,
  run: [],
  predict: 'predict.py:Predictor',
  predictKey: 'predict',
  concurrency: 1,
  environment: {},
  ...overrides,
});

/** The instructions of a Dockerfile, continuation lines joined, comments and blank lines left out. */
const instructions = (dockerfile: string): string[] =>
  dockerfile
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));

const indexOf = (lines: readonly string[], pattern: RegExp): number => {
  const index = lines.findIndex((line) => pattern.test(line));
  expect(index, String(pattern)).toBeGreaterThanOrEqual(0);
  return index;
};

describe('the Dockerfile of a CPU predictor', () => {
  const text = cogDockerfile(config());
  const lines = instructions(text);

  it('starts from the slim official Python of the requested version and installs Cog into a virtual environment', () => {
    expect(lines.filter((line) => line.startsWith('FROM '))).toEqual(['FROM python:3.11-slim']);
    expect(lines).toContain('RUN python -m venv /opt/venv');
    expect(lines).toContain(
      'ENV PATH="/opt/venv/bin:$PATH" VIRTUAL_ENV=/opt/venv PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1',
    );
    expect(lines).toContain(`RUN ["pip", "install", "--no-cache-dir", "cog==${COG_VERSION}"]`);
    expect(text).not.toContain('apt-get');
  });

  it('copies the folder into /src and serves the predictor with coglet on every address of its container, as an unprivileged user', () => {
    const copy = indexOf(lines, /^COPY --chown=10001:10001 \. \/src$/);
    expect(copy).toBeGreaterThan(indexOf(lines, /^RUN \["pip"/));
    expect(lines.slice(copy + 1, copy + 3)).toEqual([
      'WORKDIR /src',
      'ENV COG_PREDICT_TYPE_STUB="predict.py:Predictor" COG_MAX_CONCURRENCY=1 PORT=5000 PYTHONUNBUFFERED=1',
    ]);
    expect(lines.slice(-3)).toEqual([
      `USER ${MODEL_UID}:${MODEL_UID}`,
      `ENTRYPOINT ${JSON.stringify(MODEL_ENTRYPOINT_COMMAND).replace(/","/g, '", "')}`,
      'CMD ["python", "-m", "cog.server.http", "--host", "0.0.0.0"]',
    ]);
    expect(MODEL_UID).toBeGreaterThan(0);
    expect(text).toMatch(/groupadd --system --gid 10001 model/);
    expect(text).toMatch(/useradd --system --uid 10001 --gid 10001 .* model/);
    expect(text).toContain(`install -d -m 1777 ${MODEL_INPUTS_DIR}`);
  });

  it('starts coglet through the entrypoint, both in exec form, so no shell stands between Docker and them', () => {
    const entrypoints = lines.filter((line) => line.startsWith('ENTRYPOINT '));
    const cmds = lines.filter((line) => line.startsWith('CMD '));
    expect(entrypoints).toHaveLength(1);
    expect(cmds).toHaveLength(1);
    // JSON arrays: Docker execs them as they are; a command given at run time replaces CMD only.
    expect(JSON.parse(entrypoints[0]?.slice('ENTRYPOINT '.length) ?? '')).toEqual([
      MODEL_ENTRYPOINT_SHELL,
      'sh',
      MODEL_ENTRYPOINT,
    ]);
    expect(JSON.parse(cmds[0]?.slice('CMD '.length) ?? '')).toEqual([
      'python',
      '-m',
      'cog.server.http',
      '--host',
      '0.0.0.0',
    ]);
  });

  it("writes the entrypoint's very bytes with BuildKit, and its shell from the pinned static BusyBox image", () => {
    expect(ENTRYPOINT_SHELL_IMAGE).toMatch(/^busybox:\d+\.\d+\.\d+-musl$/);
    expect(lines).toContain(
      `COPY --from=${ENTRYPOINT_SHELL_IMAGE} --chmod=0755 /bin/busybox ${MODEL_ENTRYPOINT_SHELL}`,
    );
    const header = `COPY --chmod=0755 <<'PROGNOZ_ENTRYPOINT_END' ${MODEL_ENTRYPOINT}\n`;
    const start = text.indexOf(header) + header.length;
    expect(start).toBeGreaterThan(header.length);
    expect(text.slice(start, text.indexOf('\nPROGNOZ_ENTRYPOINT_END\n', start) + 1)).toBe(MODEL_ENTRYPOINT_SCRIPT);
    // No RUN writes it: the image's own shell and tools never decide what it says.
    expect(lines.filter((line) => line.startsWith('RUN ') && line.includes(MODEL_ENTRYPOINT))).toEqual([]);
  });

  it('tells coglet how many runs it takes at once', () => {
    expect(cogDockerfile(config({ concurrency: 4 }))).toContain('COG_MAX_CONCURRENCY=4 ');
  });

  it('follows the Python version to the patch when one is given', () => {
    expect(cogDockerfile(config({ pythonVersion: '3.13.1' }))).toContain('FROM python:3.13.1-slim\n');
  });

  it("sets cog.yaml's environment as Cog does, early (the build's commands see it too), each value quoted as written", () => {
    const withEnvironment = instructions(
      cogDockerfile(
        config({ run: ['echo $GREETING'], environment: { NAME: 'michael', GREETING: 'hello "$USER"', EMPTY: '' } }),
      ),
    );
    const env = indexOf(withEnvironment, /^ENV EMPTY=/);
    expect(withEnvironment[env]).toBe('ENV EMPTY="" GREETING="hello \\"\\$USER\\"" NAME="michael"');
    expect(env).toBeLessThan(indexOf(withEnvironment, /^RUN \["pip"/));
    expect(env).toBeLessThan(indexOf(withEnvironment, /^RUN echo \$GREETING$/));
    expect(lines.some((line) => line.startsWith('ENV EMPTY'))).toBe(false);
  });
});

describe('the Dockerfile of a GPU predictor', () => {
  const gpu = config({
    gpu: true,
    pythonVersion: '3.12',
    systemPackages: ['ffmpeg', 'libsndfile1', 'weird pkg'],
    pythonPackages: ['numpy==2.1.3', 'torch>=2.4,<3', '--extra-index-url https://example.com/simple'],
    pythonRequirements: 'requirements.txt',
    run: ['echo "one" > /opt/one.txt', 'curl -o /opt/w.bin "$WEIGHTS_URL"', 'set -x\necho two\necho three'],
    concurrency: 2,
  });
  const text = cogDockerfile(gpu);
  const lines = instructions(text);

  it('installs a prebuilt CPython of the requested version in a build stage and runs on the CUDA 12 + cuDNN 9 runtime', () => {
    expect(lines.filter((line) => line.startsWith('FROM '))).toEqual([
      'FROM python:3.12-slim AS python',
      `FROM ${CUDA_BASE_IMAGE}`,
    ]);
    expect(CUDA_BASE_IMAGE).toMatch(/^nvidia\/cuda:12\.[\d.]+-cudnn-runtime-ubuntu/);
    expect(text).toContain('uv python install --no-bin 3.12');
    expect(text).toContain('"$(uv python find 3.12)" -m venv /opt/venv');
    const base = indexOf(lines, /^FROM nvidia\/cuda/);
    expect(lines.slice(base + 1, base + 4)).toEqual([
      'COPY --from=python /opt/python /opt/python',
      'COPY --from=python /opt/venv /opt/venv',
      'ENV PATH="/opt/venv/bin:$PATH" VIRTUAL_ENV=/opt/venv PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1',
    ]);
  });

  it('installs the system packages with apt, without recommends, and leaves no package lists', () => {
    const apt = lines.filter((line) => line.includes('apt-get'));
    expect(apt).toEqual([
      "RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates ffmpeg libsndfile1 'weird pkg' && rm -rf /var/lib/apt/lists/*",
    ]);
  });

  it('copies the requirements file alone before one pip install of Cog, the packages and the requirements', () => {
    const copy = indexOf(lines, /^COPY \["requirements.txt", "\/tmp\/cog\/requirements.txt"\]$/);
    const pip = indexOf(lines, /^RUN \["pip"/);
    expect(copy).toBe(pip - 1);
    expect(JSON.parse(lines[pip]?.slice('RUN '.length) ?? '')).toEqual([
      'pip',
      'install',
      '--no-cache-dir',
      `cog==${COG_VERSION}`,
      'numpy==2.1.3',
      'torch>=2.4,<3',
      '--extra-index-url',
      'https://example.com/simple',
      '-r',
      '/tmp/cog/requirements.txt',
    ]);
  });

  it('runs each build command as its own RUN, in order, after the packages and before the code', () => {
    const first = indexOf(lines, /^RUN echo "one" > \/opt\/one.txt$/);
    const second = indexOf(lines, /^RUN curl -o \/opt\/w.bin "\$WEIGHTS_URL"$/);
    expect(first).toBeGreaterThan(indexOf(lines, /^RUN \["pip"/));
    expect(second).toBe(first + 1);
    // Several lines are one script: each line a command, the first failure failing the build.
    expect(text).toContain("RUN <<'PROGNOZ_RUN_END'\nset -e\nset -x\necho two\necho three\nPROGNOZ_RUN_END\n");
    expect(indexOf(lines, /^COPY --chown=10001:10001 \. \/src$/)).toBeGreaterThan(second);
  });

  it('installs the entrypoint after every build command and the folder, so none of them can change it', () => {
    const lastOfTheirs = Math.max(
      indexOf(lines, /^COPY --chown=10001:10001 \. \/src$/),
      indexOf(lines, /^PROGNOZ_RUN_END$/),
    );
    expect(indexOf(lines, /^COPY --from=busybox:/)).toBeGreaterThan(lastOfTheirs);
    expect(indexOf(lines, /^COPY --chmod=0755 <<'PROGNOZ_ENTRYPOINT_END'/)).toBeGreaterThan(lastOfTheirs);
  });

  it('tells coglet its concurrency', () => {
    expect(text).toContain(
      'ENV COG_PREDICT_TYPE_STUB="predict.py:Predictor" COG_MAX_CONCURRENCY=2 PORT=5000 PYTHONUNBUFFERED=1\n',
    );
  });

  it('is the same text for the same config (the image asset hash depends on it)', () => {
    expect(cogDockerfile(gpu)).toBe(text);
  });
});

describe('what a Dockerfile refuses', () => {
  it.each([
    [
      'a requirements file outside the folder',
      config({ pythonRequirements: '../requirements.txt' }),
      /inside the predictor folder/,
    ],
    [
      'an absolute requirements file',
      config({ pythonRequirements: '/etc/requirements.txt' }),
      /inside the predictor folder/,
    ],
    ['a Python version that is not one', config({ pythonVersion: '3.11; rm -rf /' }), /python_version/],
    ['a package over two lines', config({ systemPackages: ['ffmpeg\nRUN evil'] }), /one line/],
    ['a python package over two lines', config({ pythonPackages: ['numpy\nUSER root'] }), /one line/],
    ['an empty build command', config({ run: ['  '] }), /empty/],
  ])('%s', (_, bad, message) => {
    expect(() => cogDockerfile(bad)).toThrow(message);
  });

  it.each([
    ['a here-document marker, which would take the instructions after it as its text', 'cat <<PROGNOZ_ENTRYPOINT_END'],
    ['a quoted here-document marker', "cat > /etc/motd <<'EOF'"],
    ["a RUN flag, which would change the build's network or mounts", '--network=host curl http://169.254.169.254/'],
    ['an exec-form array', '["/bin/sh", "-c", "id"]'],
    ['a trailing backslash, which would join the next instruction', 'echo one \\'],
  ])('keeps a build command with %s to its own RUN', (_, line) => {
    const text = cogDockerfile(config({ run: [line] }));
    const own = `RUN <<'PROGNOZ_RUN_END'\nset -e\n${line}\nPROGNOZ_RUN_END\n`;
    expect(text).toContain(own);
    const after = (dockerfile: string) => dockerfile.slice(dockerfile.indexOf('RUN groupadd'));
    expect(after(text.slice(text.indexOf(own) + own.length))).toBe(after(cogDockerfile(config())));
  });

  it('escapes what Docker would read in the predict reference', () => {
    expect(cogDockerfile(config({ predict: 'my "odd" $dir/predict.py:Predictor' }))).toContain(
      'ENV COG_PREDICT_TYPE_STUB="my \\"odd\\" \\$dir/predict.py:Predictor" ',
    );
  });
});

describe('writeCogDockerfile', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'prognoz-cog-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('writes the Dockerfile into .cog/ of the folder and names it relative to the folder', () => {
    const folder = path.join(scratch, 'gpu-model');
    cpSync(path.join(FIXTURES, 'gpu-model'), folder, { recursive: true });
    expect(writeCogDockerfile(folder)).toBe(COG_DOCKERFILE);
    const file = path.join(folder, COG_DOCKERFILE);
    expect(readFileSync(file, 'utf8')).toBe(cogDockerfile(readCogConfig(folder)));
    const written = statSync(file).mtimeMs;
    writeCogDockerfile(folder);
    expect(statSync(file).mtimeMs).toBe(written);
  });

  it('refuses a folder with no cog.yaml', () => {
    expect(() => writeCogDockerfile(scratch)).toThrow(/no cog.yaml/);
  });
});

/**
 * The repository's predictor folders: those being written may not be there yet, and stand-ins of
 * the same kind (a CPU one, a GPU one with requirements) are tested in their place.
 */
const predictorFolders = (() => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'prognoz-predictors-'));
  const folders = ['echo', 'stream', 'transcribe'].map((name) => {
    const folder = path.join(ROOT, 'models', name);
    if (existsSync(path.join(folder, 'cog.yaml'))) return { name: `models/${name}`, folder };
    const standIn = path.join(scratch, name);
    cpSync(path.join(FIXTURES, name === 'transcribe' ? 'gpu-model' : 'cpu-model'), standIn, { recursive: true });
    return { name: `models/${name} (not written yet: a stand-in)`, folder: standIn };
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  return folders;
})();

describe.each(predictorFolders)('the predictor folder $name', ({ folder }) => {
  it('has a cog.yaml prognoz can build from, and its Dockerfile copies only files the folder has', () => {
    const text = cogDockerfile(readCogConfig(folder));
    const sources = copiedSources(text);
    expect(sources).toContain('.');
    for (const source of sources) expect(existsSync(path.join(folder, source)), `COPY ${source}`).toBe(true);
    const predictFile = readCogConfig(folder).predict.split(':')[0] ?? '';
    expect(existsSync(path.join(folder, predictFile)), predictFile).toBe(true);
  });
});

describe('the fixture predictors', () => {
  it('are the configs the fleet tests assume', () => {
    expect(readCogConfig(path.join(FIXTURES, 'gpu-model'))).toMatchObject({
      gpu: true,
      concurrency: 1,
      pythonRequirements: 'requirements.txt',
    });
    expect(readCogConfig(path.join(FIXTURES, 'cpu-model'))).toMatchObject({ gpu: false, concurrency: 4 });
  });

  it("in Cog's other shapes (a function, an async generator two at a time, run: and a BaseRunner) tell coglet which and how many", () => {
    const shout = readCogConfig(path.join(FIXTURES, 'function'));
    expect(shout).toMatchObject({ predict: 'predict.py:run', predictKey: 'run', concurrency: 1 });
    expect(cogDockerfile(shout)).toContain('ENV COG_PREDICT_TYPE_STUB="predict.py:run" COG_MAX_CONCURRENCY=1 ');
    const counter = readCogConfig(path.join(FIXTURES, 'async-stream'));
    expect(counter).toMatchObject({ predict: 'predict.py:Predictor', concurrency: 2 });
    expect(cogDockerfile(counter)).toContain('ENV COG_PREDICT_TYPE_STUB="predict.py:Predictor" COG_MAX_CONCURRENCY=2 ');
    const runner = readCogConfig(path.join(FIXTURES, 'runner'));
    expect(runner).toMatchObject({ predict: 'run.py:Runner', predictKey: 'run' });
    expect(cogDockerfile(runner)).toContain('ENV COG_PREDICT_TYPE_STUB="run.py:Runner" ');
    expect(cogDockerfile(runner)).toContain('ENV EMPTY="" GREETING="hello from cog.yaml"\n');
  });
});
