import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';

/**
 * Cog's runtime (coglet, from the `cog` Python package) that runs every model, locally and in every
 * image: one pinned version, so that every model serves the same HTTP API the worker drives.
 */
export const COG_VERSION = '0.23.1';

/** The parts of a predictor's `cog.yaml` that prognoz builds and runs from (Cog's own keys). */
const cogYaml = z.object({
  build: z
    .object({
      gpu: z.boolean().default(false),
      python_version: z.union([z.string(), z.number()]).transform(String).default('3.11'),
      system_packages: z.array(z.string()).default([]),
      python_packages: z.array(z.string()).default([]),
      python_requirements: z.string().optional(),
      // Cog accepts a command or {command, mounts}; mounts are a BuildKit detail we do not use.
      run: z
        .array(z.union([z.string(), z.object({ command: z.string() }).transform((entry) => entry.command)]))
        .default([]),
    })
    .prefault({}),
  predict: z.string().regex(/^[^:]+\.py:[A-Za-z_][A-Za-z0-9_]*$/, 'must be "<file>.py:<Predictor>"'),
  concurrency: z.object({ max: z.number().int().min(1).max(64).default(1) }).prefault({}),
});

export interface CogConfig {
  readonly gpu: boolean;
  readonly pythonVersion: string;
  readonly systemPackages: readonly string[];
  readonly pythonPackages: readonly string[];
  /** A requirements file, relative to the predictor folder. */
  readonly pythonRequirements: string | null;
  readonly run: readonly string[];
  /** `predict.py:Predictor`. */
  readonly predict: string;
  /** Runs one server takes at once (`concurrency.max`). */
  readonly concurrency: number;
}

export class CogConfigError extends Error {
  override readonly name = 'CogConfigError';
}

export const parseCogConfig = (text: string, source: string): CogConfig => {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw new CogConfigError(`${source}: not valid YAML: ${String(error)}`);
  }
  const parsed = cogYaml.safeParse(raw ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`)
      .join('; ');
    throw new CogConfigError(`${source}: ${problems}`);
  }
  const { build, predict, concurrency } = parsed.data;
  return {
    gpu: build.gpu,
    pythonVersion: build.python_version,
    systemPackages: build.system_packages,
    pythonPackages: build.python_packages,
    pythonRequirements: build.python_requirements ?? null,
    run: build.run,
    predict,
    concurrency: concurrency.max,
  };
};

/** Reads `<folder>/cog.yaml`. */
export const readCogConfig = (folder: string): CogConfig => {
  const file = path.join(folder, 'cog.yaml');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new CogConfigError(`${folder} is not a Cog predictor folder: it has no cog.yaml`);
  }
  return parseCogConfig(text, file);
};
