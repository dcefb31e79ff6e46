import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cogDockerfile, MODEL_UID } from '../../infra/cog/dockerfile.ts';
import { MODEL_ENTRYPOINT_COMMAND } from '../../infra/cog/model-entrypoint.ts';
import {
  predictorFolderOf,
  WORKER_BUILD_CONTEXT,
  WORKER_DOCKER_EXCLUDES,
  WORKER_DOCKERFILE,
} from '../../infra/constructs/model-fleet.ts';
import { readCogConfig } from '../../shared/adapters/cog-files.ts';
import { copiedSources } from '../support/dockerfile.ts';
import { testCatalog } from '../support/catalog.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

describe('the worker Dockerfile', () => {
  const text = readFileSync(path.join(ROOT, WORKER_DOCKERFILE), 'utf8');

  it('copies only files that exist (its context is the repository root)', () => {
    const copied = copiedSources(text);
    expect(copied.length).toBeGreaterThan(0);
    for (const source of copied)
      expect(existsSync(path.join(ROOT, source)), `${WORKER_DOCKERFILE}: COPY ${source}`).toBe(true);
  });

  it('bundles the worker entry point with the catalog of models the registry imports', () => {
    expect(text).toContain('worker/main.ts');
    expect(copiedSources(text)).toEqual(expect.arrayContaining(['models/manifest.json', 'models/schemas.json']));
  });

  it('has a build context of only what it copies (an allow-list), and .dockerignore says the same', () => {
    const copied = copiedSources(text).map((source) => source.replace(/\/$/, ''));
    expect([...WORKER_BUILD_CONTEXT].sort()).toEqual([...new Set(copied)].sort());
    expect(WORKER_DOCKER_EXCLUDES[0]).toBe('*');
    const dockerignore = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('#'));
    expect(dockerignore).toEqual(WORKER_DOCKER_EXCLUDES);
  });
});

describe.each(testCatalog.offered.map((model) => ({ id: model.id, folder: predictorFolderOf(model) })))(
  'the model $id',
  ({ folder }) => {
    it('has a predictor folder whose generated Dockerfile copies only files that exist there', () => {
      const text = cogDockerfile(readCogConfig(folder));
      const copied = copiedSources(text);
      expect(copied).toContain('.');
      for (const source of copied)
        expect(existsSync(path.join(folder, source)), `${folder}: COPY ${source}`).toBe(true);
    });

    it('starts its model server through the entrypoint that withholds the AWS credentials, as the unprivileged user', () => {
      const text = cogDockerfile(readCogConfig(folder));
      const last = text.trimEnd().split('\n').slice(-3);
      expect(last[0]).toBe(`USER ${MODEL_UID}:${MODEL_UID}`);
      expect(JSON.parse(last[1]?.replace(/^ENTRYPOINT /, '') ?? '')).toEqual(MODEL_ENTRYPOINT_COMMAND);
      expect(last[2]).toMatch(/^CMD \["python", "-m", "cog.server.http", "--host", "0.0.0.0"\]$/);
    });
  },
);
