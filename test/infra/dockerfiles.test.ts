import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKER_DOCKERFILE } from '../../infra/constructs/model-fleet.ts';
import { MODELS } from '../../shared/models/registry.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** The sources of every COPY that takes files from the build context (the repository root). */
const copiedPaths = (dockerfile: string): string[] =>
  readFileSync(path.join(ROOT, dockerfile), 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => /^\s*COPY\s/i.test(line) && !/--from=/i.test(line))
    .flatMap((line) => {
      const parts = line.trim().split(/\s+/).slice(1).filter((part) => !part.startsWith('--'));
      return parts.slice(0, -1);
    });

describe('Dockerfiles', () => {
  const dockerfiles = [WORKER_DOCKERFILE, ...MODELS.map((model) => model.fleet.dockerfile)];

  it.each(dockerfiles)('%s exists and copies only files that exist', (dockerfile) => {
    expect(existsSync(path.join(ROOT, dockerfile))).toBe(true);
    const copied = copiedPaths(dockerfile);
    expect(copied.length).toBeGreaterThan(0);
    for (const source of copied) expect(existsSync(path.join(ROOT, source)), `${dockerfile}: COPY ${source}`).toBe(true);
  });

  it('the worker image runs the worker entry point', () => {
    expect(readFileSync(path.join(ROOT, WORKER_DOCKERFILE), 'utf8')).toContain('worker/main.ts');
  });
});
