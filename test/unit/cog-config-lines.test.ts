import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeCogDockerfile } from '../../infra/cog/dockerfile.ts';
import { pipFailure, pipInstallsOf } from '../../local/model-env.ts';
import { keyLabel } from '../../shared/catalog/cog-config-error.ts';
import { CogConfigError, parseCogFile, type CogFile } from '../../shared/catalog/cog-config.ts';
import { readCogFile } from '../../shared/adapters/cog-files.ts';
import { parseLocatedYaml } from '../../shared/catalog/yaml-locations.ts';

const FILE = path.join(process.cwd(), 'acme', 'cog.yaml');

/** The error `act` throws, as a CogConfigError. */
const configError = (act: () => unknown): CogConfigError => {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(CogConfigError);
    return error as CogConfigError;
  }
  throw new Error('expected a CogConfigError');
};

const YAML = [
  '# a predictor', // 1
  'build:', // 2
  '  gpu: true', // 3
  '  python_version: 3.10', // 4
  '  system_packages:', // 5
  '    - ffmpeg', // 6
  '    - "libsndfile1"', // 7
  'predict: predict.py:Predictor', // 8
  'concurrency: {max: 2}', // 9
].join('\n');

describe('where a key of cog.yaml is written', () => {
  const yaml = parseLocatedYaml(YAML);

  it("is the line and column of the key, or of a list's entry", () => {
    expect(yaml.positionOf(['build', 'gpu'])).toEqual({ line: 3, column: 3 });
    expect(yaml.positionOf(['build', 'system_packages', 1])).toEqual({ line: 7, column: 7 });
    expect(yaml.positionOf(['predict'])).toEqual({ line: 8, column: 1 });
    expect(yaml.positionOf(['concurrency', 'max'])).toEqual({ line: 9, column: 15 });
  });

  it('is nowhere for a key the file does not have', () => {
    expect(yaml.positionOf(['build', 'python_packages'])).toBeNull();
    expect(yaml.positionOf(['build', 'system_packages', 2])).toBeNull();
    expect(yaml.positionOf(['predict', 'deeper'])).toBeNull();
  });

  it('keeps a value as written: python_version 3.10 is not the number 3.1', () => {
    expect(yaml.sourceOf(['build', 'python_version'])).toBe('3.10');
    expect(yaml.shownValueOf(['build', 'system_packages', 1])).toBe('"libsndfile1"');
    expect(yaml.shownValueOf(['build', 'gpu'])).toBe('true');
    expect(yaml.shownValueOf(['build'])).toBeNull();
  });

  it('names keys as a person reads them', () => {
    expect(keyLabel(['build', 'system_packages', 1])).toBe('build.system_packages[1]');
    expect(keyLabel(['predict'])).toBe('predict');
  });
});

describe('a cog.yaml prognoz cannot read', () => {
  it('reads python_version as written', () => {
    expect(parseCogFile(YAML, FILE).config).toMatchObject({ pythonVersion: '3.10', gpu: true, concurrency: 2 });
  });

  it('names the line of every key at fault, with its value', () => {
    const error = configError(() =>
      parseCogFile(
        'build:\n  gpu: "yes"\n  python_version: "3.11; rm -rf /"\n  system_packages:\n    - 3\npredict: "predict.py"\nconcurrency:\n  max: 0\n',
        FILE,
      ),
    );
    expect(error.issues.map((issue) => [issue.line, issue.subject])).toEqual([
      [2, 'build.gpu "yes"'],
      [3, 'build.python_version "3.11; rm -rf /"'],
      [5, 'build.system_packages[0] 3'],
      [6, 'predict "predict.py"'],
      [8, 'concurrency.max 0'],
    ]);
    expect(error.message.split('\n')[0]).toBe(
      'acme/cog.yaml:2: build.gpu "yes": Invalid input: expected boolean, received string',
    );
    expect(error.message).toContain('acme/cog.yaml:6: predict "predict.py": must be "<file>.py:<class or function>"');
  });

  it("refuses a key Cog does not know, at its line, as Cog does: a misspelt one would fall back to Cog's default unseen", () => {
    const error = configError(() =>
      parseCogFile(
        'build:\n  gpu: false\n  pyton_version: "3.12"\npredict: "p.py:P"\nconcurrency:\n  maximum: 2\n',
        FILE,
      ),
    );
    expect(error.message.split('\n')).toEqual([
      'acme/cog.yaml:3: build.pyton_version "3.12": is not a key Cog knows (build has gpu, python_version, system_packages, python_packages, python_requirements, run, cuda, cudnn, pre_install, fast, environment, python_overrides)',
      'acme/cog.yaml:6: concurrency.maximum 2: is not a key Cog knows (concurrency has max, default_target)',
    ]);
  });

  it('takes the keys Cog knows that prognoz does not use, and a list left empty, as Cog takes them', () => {
    expect(
      parseCogFile(
        'build:\n  cuda: "12.1"\n  python_packages:\n  # - torch\n  system_packages:\npredict: "p.py:P"\nimage: r8.im/acme/x\n',
        FILE,
      ).config,
    ).toMatchObject({ pythonPackages: [], systemPackages: [], run: [] });
  });

  it('refuses a Python older than Cog runs on, at its line', () => {
    const error = configError(() => parseCogFile('build:\n  python_version: "3.8"\npredict: "p.py:P"\n', FILE));
    expect(error.message).toBe(
      'acme/cog.yaml:2: build.python_version "3.8": Cog 0.23.1, which runs every model, needs Python 3.10 or later',
    );
    expect(error.issues[0]?.column).toBe(3);
  });

  it('says a missing predictor is missing, for the file as a whole', () => {
    expect(configError(() => parseCogFile('build: {}\n', FILE)).message).toBe(
      'acme/cog.yaml: names no predictor: add run: "run.py:Runner" (or the former predict: "predict.py:Predictor")',
    );
  });

  it("takes Cog's current run: as it takes the former predict:, and refuses both at the run line", () => {
    expect(parseCogFile('run: "run.py:Runner"\n', FILE).config).toMatchObject({
      predict: 'run.py:Runner',
      predictKey: 'run',
    });
    expect(parseCogFile('predict: "predict.py:Predictor"\n', FILE).config).toMatchObject({ predictKey: 'predict' });
    expect(configError(() => parseCogFile('predict: "p.py:P"\nrun: "r.py:R"\n', FILE)).message).toBe(
      'acme/cog.yaml:2: run "r.py:R": and predict are both set: only one of run or predict can be',
    );
  });

  it('reads environment: as Cog does, and refuses at its line an entry not NAME=value, a name set twice, or one the runtime owns', () => {
    expect(
      parseCogFile('run: "r.py:R"\nenvironment:\n  - NAME=michael\n  - EQUALS=a=b\n  - EMPTY=\n', FILE).config
        .environment,
    ).toEqual({ NAME: 'michael', EQUALS: 'a=b', EMPTY: '' });
    const refused = configError(() =>
      parseCogFile(
        'run: "r.py:R"\nenvironment:\n  - NAME\n  - A=1\n  - A=2\n  - AWS_SECRET_ACCESS_KEY=x\n  - PROGNOZ_TABLE_NAME=t\n  - COG_MAX_CONCURRENCY=4\n  - PATH=/bin\n  - CUDA_HOME=/x\n  - COG_LOG_LEVEL=debug\n',
        FILE,
      ),
    );
    const lines = refused.message.split('\n');
    expect(lines[0]).toBe('acme/cog.yaml:3: environment[0] "NAME": is not in the NAME=value format');
    expect(lines[1]).toBe('acme/cog.yaml:5: environment[2] "A=2": sets A again');
    expect(lines.slice(2).map((line) => /:(\d+): /.exec(line)?.[1])).toEqual(['6', '7', '8', '9', '10']);
    expect(lines[2]).toContain('sets AWS_SECRET_ACCESS_KEY, which the runtime reserves for itself');
  });

  it('names the line of a YAML syntax error', () => {
    expect(configError(() => parseCogFile('build:\n  gpu: true\n  gpu: false\n', FILE)).message).toBe(
      'acme/cog.yaml:3: not valid YAML: Map keys must be unique',
    );
  });

  it('names a file outside the working folder in full', () => {
    const elsewhere = path.join(path.parse(process.cwd()).root, 'elsewhere', 'cog.yaml');
    expect(configError(() => parseCogFile('predict: 1', elsewhere)).message).toMatch(
      new RegExp(`^${elsewhere.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1: predict 1: `),
    );
  });
});

describe('the files a cog.yaml names', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'prognoz-cog-lines-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const folder = (name: string, yaml: string, files: readonly string[] = []): string => {
    const dir = path.join(scratch, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'cog.yaml'), yaml);
    for (const file of files) writeFileSync(path.join(dir, file), '');
    return dir;
  };

  it('are in the predictor folder: the predictor module and the requirements, each told at its line', () => {
    const dir = folder('missing', 'build:\n  python_requirements: requirements.txt\npredict: "predikt.py:Predictor"\n');
    expect(configError(() => readCogFile(dir)).issues.map((issue) => [issue.line, issue.problem])).toEqual([
      [3, `predikt.py is not in the predictor folder ${dir}`],
      [2, `requirements.txt is not in the predictor folder ${dir}`],
    ]);
  });

  it('at synth, a value no image can be built from is told at its line of cog.yaml', () => {
    const dir = folder(
      'unsafe',
      'build:\n  system_packages:\n    - ffmpeg\n    - "curl\\nUSER root"\npredict: "predict.py:Predictor"\n',
      ['predict.py'],
    );
    expect(configError(() => writeCogDockerfile(dir)).message).toBe(
      `${path.join(dir, 'cog.yaml')}:4: build.system_packages[1] "curl\\nUSER root": must be one line`,
    );
    const heredoc = folder(
      'heredoc',
      'build:\n  run:\n    - echo ok\n    - "cat <<PROGNOZ_RUN_END"\n    - |\n      echo one\n      PROGNOZ_RUN_END\npredict: "predict.py:Predictor"\n',
      ['predict.py'],
    );
    expect(configError(() => writeCogDockerfile(heredoc)).issues[0]).toMatchObject({
      line: 5,
      subject: 'build.run[2] "echo one\\nPROGNOZ_RUN_END\\n"',
      problem: 'must not contain a line "PROGNOZ_RUN_END"',
    });
  });
});

describe('a pip install that fails', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'prognoz-pip-lines-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  writeFileSync(path.join(scratch, 'requirements.txt'), '# pinned\nnumpy==2.1.3\nNo_Such.Thing>=1\n');
  const cog: CogFile = parseCogFile(
    [
      'build:', // 1
      '  python_packages:', // 2
      '    - "torch>=2.4,<3"', // 3
      '    - "Missing_Package==1.0"', // 4
      '  python_requirements: requirements.txt', // 5
      '  run:', // 6
      '    - apt-get update', // 7
      '    - pip install --no-deps tiny==1', // 8
      'predict: "predict.py:Predictor"', // 9
    ].join('\n'),
    path.join(scratch, 'cog.yaml'),
  );
  const { installs, skipped } = pipInstallsOf(scratch, cog.config);
  const [packages, requirements, runLine] = installs;
  const notFound = (name: string) =>
    `Collecting torch\nERROR: Could not find a version that satisfies the requirement ${name} (from versions: none)\nERROR: No matching distribution found for ${name}\n`;

  it('are the installs of a Cog image, each with the key it comes from', () => {
    expect(installs.map((install) => [install.args, keyLabel(install.key)])).toEqual([
      [['cog==0.23.1', 'torch>=2.4,<3', 'Missing_Package==1.0'], 'build.python_packages'],
      [['-r', path.join(scratch, 'requirements.txt')], 'build.python_requirements'],
      [['--no-deps', 'tiny==1'], 'build.run[1]'],
    ]);
    expect(skipped).toEqual(['apt-get update']);
  });

  it('is told at the entry of python_packages pip names (its name as pip spells it), with what pip said', () => {
    if (!packages) throw new Error('no install of python_packages');
    expect(pipFailure(cog, scratch, packages, notFound('missing-package==1.0'))).toMatchObject({
      line: 4,
      subject: 'build.python_packages[1] "Missing_Package==1.0"',
      problem:
        'pip could not install it: ERROR: Could not find a version that satisfies the requirement missing-package==1.0 (from versions: none) | ERROR: No matching distribution found for missing-package==1.0',
    });
    expect(pipFailure(cog, scratch, packages, 'ERROR: network is unreachable\n')).toMatchObject({
      line: 2,
      subject: 'build.python_packages',
    });
  });

  it('is told at python_requirements, with the line of the requirements file pip names', () => {
    if (!requirements) throw new Error('no install of the requirements');
    expect(pipFailure(cog, scratch, requirements, notFound('no-such-thing>=1'))).toMatchObject({
      line: 5,
      problem: expect.stringMatching(
        /^pip could not install it \(requirements\.txt line 3: No_Such\.Thing>=1\): ERROR/,
      ) as string,
    });
  });

  it('is told at the run line it comes from', () => {
    if (!runLine) throw new Error('no pip run line');
    expect(pipFailure(cog, scratch, runLine, notFound('tiny==1'))).toMatchObject({
      line: 8,
      subject: 'build.run[1] "pip install --no-deps tiny==1"',
    });
  });

  it("is Cog's own, told for the file, when cog.yaml names no package", () => {
    const bare = parseCogFile('predict: "predict.py:Predictor"\n', path.join(scratch, 'cog.yaml'));
    const [cogOnly] = pipInstallsOf(scratch, bare.config).installs;
    if (!cogOnly) throw new Error('no install of Cog');
    expect(pipFailure(bare, scratch, cogOnly, 'ERROR: No matching distribution found for cog==0.23.1\n')).toMatchObject(
      {
        line: null,
        subject: null,
        problem: expect.stringMatching(/^pip could not install Cog 0\.23\.1, which runs every model: ERROR/) as string,
      },
    );
  });
});
