import * as z from 'zod';
import { CogConfigError, keyLabel, type CogIssue, type CogKeyPath } from './cog-config-error.ts';
import { parseLocatedYaml } from './yaml-locations.ts';

export { CogConfigError, type CogIssue, type CogKeyPath } from './cog-config-error.ts';

import { COG_VERSION } from './cog-version.ts';

export { COG_VERSION } from './cog-version.ts';

/** The oldest Python that COG_VERSION installs on (its package's Requires-Python): no image nor local environment can have it on an older one. */
export const OLDEST_COG_PYTHON_MINOR = 10;

/** `3.<minor>` or `3.<minor>.<patch>`, the minor captured. */
export const PYTHON_VERSION = /^3\.(\d{1,2})(?:\.\d{1,2})?$/;

const pythonVersion = z
  .string()
  .regex(PYTHON_VERSION, 'must be "3.<minor>" or "3.<minor>.<patch>", as "3.11"')
  .refine((version) => {
    const minor = PYTHON_VERSION.exec(version)?.[1];
    return minor === undefined || Number(minor) >= OLDEST_COG_PYTHON_MINOR;
  }, `Cog ${COG_VERSION}, which runs every model, needs Python 3.${OLDEST_COG_PYTHON_MINOR} or later`);

/** A list Cog lets be empty as `key:` with nothing under it (null), as a cog.yaml with its entries commented out has. */
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((entries) => entries ?? []);

/** A key Cog knows that prognoz builds nothing from: accepted, as Cog accepts it. */
const unused = z.unknown().optional();

/**
 * A predictor's `cog.yaml`: the keys prognoz builds and runs from, and the others Cog's schema
 * (config_schema_v1.0.json, as Cog 0.23 validates) allows. Any other key is refused at its line,
 * as Cog refuses it: a misspelt `pyton_version` would otherwise fall back to the default unseen.
 */
const buildSchema = z
  .strictObject({
    gpu: z.boolean().default(false),
    python_version: z.union([z.string(), z.number()]).transform(String).pipe(pythonVersion).default('3.11'),
    system_packages: list(z.string()),
    python_packages: list(z.string()),
    python_requirements: z.string().optional(),
    // Cog accepts a command or {command, mounts}; mounts are a BuildKit detail we do not use.
    run: list(z.union([z.string(), z.object({ command: z.string() }).transform((entry) => entry.command)])),
    cuda: unused,
    cudnn: unused,
    pre_install: unused,
    fast: unused,
    environment: unused,
    python_overrides: unused,
  })
  .prefault({});
const concurrencySchema = z
  .strictObject({ max: z.number().int().min(1).max(64).default(1), default_target: unused })
  .prefault({});
/** A predictor's reference: its module and its class or function. */
const predictorRef = z.string().regex(/^[^:]+\.py:[A-Za-z_][A-Za-z0-9_]*$/, 'must be "<file>.py:<class or function>"');

/**
 * Names a model's environment may not set: Cog's own reserved names (config/env.go), and those
 * the runtime sets itself — the model server's (coglet's reference, concurrency and port), the
 * task's AWS credentials and metadata (the model container gets none), and prognoz's settings.
 */
const RESERVED_ENV = [
  'PATH',
  'LD_LIBRARY_PATH',
  'PYTHONPATH',
  'VIRTUAL_ENV',
  'PYTHONUNBUFFERED',
  'LIBRARY_PATH',
  'HF_ENDPOINT',
  'HF_HUB_ENABLE_HF_TRANSFER',
  'PORT',
  'COG_PREDICT_TYPE_STUB',
  'COG_TRAIN_TYPE_STUB',
  'COG_MAX_CONCURRENCY',
];
const RESERVED_ENV_PREFIXES = [
  'R8_',
  'REPLICATE_',
  'CUDA_',
  'NVIDIA_',
  'NV_',
  'PGET_',
  'KUBERNETES_',
  'AWS_',
  'ECS_',
  'PROGNOZ_',
];

/** `environment:`: `NAME=value` entries, as Cog reads them (the value as written, after the first `=`). */
const environment = list(z.string()).transform((entries, context) => {
  const variables: Record<string, string> = {};
  entries.forEach((entry, index) => {
    const equals = entry.indexOf('=');
    const name = equals < 0 ? '' : entry.slice(0, equals);
    const problem = !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
      ? 'is not in the NAME=value format'
      : name in variables
        ? `sets ${name} again`
        : RESERVED_ENV.includes(name) || RESERVED_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))
          ? `sets ${name}, which the runtime reserves for itself (Cog's own names, the model server's, AWS credentials, prognoz's settings)`
          : null;
    if (problem === null) variables[name] = entry.slice(equals + 1);
    else context.addIssue({ code: 'custom', path: [index], message: problem });
  });
  return variables;
});

const cogYaml = z
  .strictObject({
    build: buildSchema,
    // `run:` is Cog's name for the predictor since Cog 0.17 (`cog init` writes it); `predict:` its former one.
    run: predictorRef.optional(),
    predict: predictorRef.optional(),
    concurrency: concurrencySchema,
    environment,
    image: unused,
    train: unused,
    tests: unused,
  })
  .superRefine((config, context) => {
    if (config.run !== undefined && config.predict !== undefined)
      context.addIssue({
        code: 'custom',
        path: ['run'],
        message: 'and predict are both set: only one of run or predict can be',
      });
    if (config.run === undefined && config.predict === undefined)
      context.addIssue({
        code: 'custom',
        path: [],
        message: 'names no predictor: add run: "run.py:Runner" (or the former predict: "predict.py:Predictor")',
      });
  });

/** The keys Cog knows at each level of cog.yaml, for telling someone who wrote another. */
const KNOWN_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': Object.keys(cogYaml.shape),
  build: Object.keys(buildSchema.unwrap().shape),
  concurrency: Object.keys(concurrencySchema.unwrap().shape),
};

export interface CogConfig {
  readonly gpu: boolean;
  readonly pythonVersion: string;
  readonly systemPackages: readonly string[];
  readonly pythonPackages: readonly string[];
  /** A requirements file, relative to the predictor folder. */
  readonly pythonRequirements: string | null;
  readonly run: readonly string[];
  /** The predictor coglet serves: `run.py:Runner`, `predict.py:Predictor`, or a function. */
  readonly predict: string;
  /** Which key of cog.yaml names it: `run` (Cog's current name) or `predict` (its former one). */
  readonly predictKey: 'run' | 'predict';
  /** Runs one server takes at once (`concurrency.max`). */
  readonly concurrency: number;
  /** `environment:`, by name: set for the model server, locally and in its image. */
  readonly environment: Readonly<Record<string, string>>;
}

/** The key of cog.yaml that each part of CogConfig is read from (the predictor's: `predictKeyOf`). */
export const COG_KEYS = {
  gpu: ['build', 'gpu'],
  pythonVersion: ['build', 'python_version'],
  systemPackages: ['build', 'system_packages'],
  pythonPackages: ['build', 'python_packages'],
  pythonRequirements: ['build', 'python_requirements'],
  run: ['build', 'run'],
  concurrency: ['concurrency', 'max'],
  environment: ['environment'],
} as const satisfies Record<Exclude<keyof CogConfig, 'predict' | 'predictKey'>, CogKeyPath>;

/** The key that names the predictor in this cog.yaml: `run`, or `predict`. */
export const predictKeyOf = (config: Pick<CogConfig, 'predictKey'>): CogKeyPath => [config.predictKey];

/** A cog.yaml read, that can say where each of its keys is written. */
export interface CogFile {
  readonly file: string;
  readonly config: CogConfig;
  /** What is wrong at `key`, told at its line with its value as written. */
  readonly issue: (key: CogKeyPath, problem: string) => CogIssue;
}

export const parseCogFile = (text: string, file: string): CogFile => {
  const yaml = parseLocatedYaml(text);
  if (yaml.errors.length > 0) {
    throw new CogConfigError(
      yaml.errors.map((error) => ({
        file,
        line: error.line,
        column: error.column,
        subject: null,
        problem: `not valid YAML: ${error.message}`,
      })),
    );
  }
  const issue = (key: CogKeyPath, problem: string): CogIssue => {
    const position = yaml.positionOf(key);
    const shown = yaml.shownValueOf(key);
    return {
      file,
      line: position?.line ?? null,
      column: position?.column ?? null,
      subject: key.length === 0 ? null : shown === null ? keyLabel(key) : `${keyLabel(key)} ${shown}`,
      problem,
    };
  };
  const raw = yaml.value ?? {};
  // Cog reads python_version as the text written: `3.10` is Python 3.10, not the number 3.1.
  const written = yaml.sourceOf(COG_KEYS.pythonVersion);
  const build = typeof raw === 'object' && raw !== null ? (raw as { build?: unknown }).build : undefined;
  if (written !== null && typeof build === 'object' && build !== null) {
    (build as Record<string, unknown>).python_version = written;
  }
  const parsed = cogYaml.safeParse(raw);
  if (!parsed.success) {
    throw new CogConfigError(
      parsed.error.issues
        .flatMap((problem) => {
          const at = problem.path.filter((part) => typeof part !== 'symbol');
          if (problem.code !== 'unrecognized_keys') return [issue(at, problem.message)];
          const known = KNOWN_KEYS[at.join('.')] ?? [];
          return problem.keys.map((key) =>
            issue([...at, key], `is not a key Cog knows (${keyLabel(at) || 'cog.yaml'} has ${known.join(', ')})`),
          );
        })
        .sort((a, b) => (a.line ?? 0) - (b.line ?? 0)),
    );
  }
  const { build: built, run, predict, concurrency, environment: variables } = parsed.data;
  return {
    file,
    issue,
    config: {
      gpu: built.gpu,
      pythonVersion: built.python_version,
      systemPackages: built.system_packages,
      pythonPackages: built.python_packages,
      pythonRequirements: built.python_requirements ?? null,
      run: built.run,
      predict: run ?? predict ?? '',
      predictKey: run === undefined ? 'predict' : 'run',
      concurrency: concurrency.max,
      environment: variables,
    },
  };
};

export const parseCogConfig = (text: string, source: string): CogConfig => parseCogFile(text, source).config;
