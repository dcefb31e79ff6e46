import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { WORKER_CALLBACK_PORT, WORKER_DOCKERFILE } from '../../infra/constructs/model-fleet.ts';
import { COG_DOCKERFILE, cogDockerfile, MODEL_INPUTS_DIR } from '../../infra/cog/dockerfile.ts';
import { MODEL_ENTRYPOINT_ENV } from '../../infra/cog/model-entrypoint.ts';
import { readCogConfig } from '../../shared/adapters/cog-files.ts';
import { FIXTURE_PREDICTORS, fixtureModel, synthFleet } from '../support/fleet.ts';

interface DockerImageAsset {
  source: { directory: string; dockerFile?: string; platform?: string };
}

/** The Docker image assets of a synthesized fleet, with their staged build contexts. */
const imageAssets = (synthesized: ReturnType<typeof synthFleet>) => {
  const manifest = JSON.parse(readFileSync(path.join(synthesized.assembly.directory, 'Test.assets.json'), 'utf8')) as {
    dockerImages: Record<string, DockerImageAsset>;
  };
  return Object.entries(manifest.dockerImages).map(([hash, asset]) => ({
    hash,
    ...asset.source,
    context: path.join(synthesized.assembly.directory, asset.source.directory),
  }));
};

interface ContainerDefinition {
  Name: string;
  Image: unknown;
  Environment?: { Name: string; Value: unknown }[];
  MountPoints?: unknown[];
  HealthCheck?: { Command: string[] };
}

const containers = (template: Template): Record<string, ContainerDefinition> => {
  const [task] = Object.values(template.findResources('AWS::ECS::TaskDefinition')) as {
    Properties: { ContainerDefinitions: ContainerDefinition[] };
  }[];
  return Object.fromEntries(
    (task?.Properties.ContainerDefinitions ?? []).map((container) => [container.Name, container]),
  );
};

const environmentOf = (container: ContainerDefinition | undefined): Record<string, unknown> =>
  Object.fromEntries((container?.Environment ?? []).map(({ Name, Value }) => [Name, Value]));

describe('a fleet whose predictor needs a GPU', () => {
  const model = fixtureModel('gpu-model');
  const synthesized = synthFleet(model);
  const { template } = synthesized;
  const folder = path.join(FIXTURE_PREDICTORS, 'gpu-model');

  it('reserves the GPU for the model server and boots the GPU-optimized ECS AMI', () => {
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: Match.arrayWith([
        Match.objectLike({ Name: 'ModelServer', ResourceRequirements: [{ Type: 'GPU', Value: '1' }] }),
        Match.objectLike({ Name: 'Worker', ResourceRequirements: Match.absent() }),
      ]),
    });
    expect(JSON.stringify(template.toJSON().Parameters ?? {})).toContain(
      '/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id',
    );
  });

  it('builds the model server from the predictor folder with the Dockerfile generated from its cog.yaml, for amd64', () => {
    const model = imageAssets(synthesized).find((asset) => asset.dockerFile === COG_DOCKERFILE);
    expect(model).toBeDefined();
    expect(model?.platform).toBe('linux/amd64');
    const context = model?.context ?? '';
    expect(readFileSync(path.join(context, COG_DOCKERFILE), 'utf8')).toBe(cogDockerfile(readCogConfig(folder)));
    for (const file of ['cog.yaml', 'predict.py', 'requirements.txt'])
      expect(existsSync(path.join(context, file)), file).toBe(true);
    // The container runs that very image: its URI ends with the asset's hash.
    expect(JSON.stringify(containers(template).ModelServer?.Image)).toContain(`:${model?.hash ?? 'none'}`);
    expect(readFileSync(path.join(folder, COG_DOCKERFILE), 'utf8')).toContain('FROM nvidia/cuda:12');
  });

  it('builds the worker from the repository root with its own Dockerfile', () => {
    const worker = imageAssets(synthesized).find((asset) => asset.dockerFile === WORKER_DOCKERFILE);
    expect(worker).toBeDefined();
    expect(existsSync(path.join(worker?.context ?? '', 'models', 'manifest.json'))).toBe(true);
    expect(existsSync(path.join(worker?.context ?? '', 'models', 'echo'))).toBe(false);
    expect(JSON.stringify(containers(template).Worker?.Image)).toContain(`:${worker?.hash ?? 'none'}`);
  });

  it("checks coglet's health from the worker's container (READY or BUSY), never by a command inside the model's", () => {
    expect(containers(template).ModelServer?.HealthCheck).toBeUndefined();
    const command = containers(template).Worker?.HealthCheck?.Command ?? [];
    expect(command.slice(0, 3)).toEqual(['CMD', 'node', '-e']);
    expect(command[3]).toContain('http://model:5000/health-check');
    expect(command[3]).toContain("['READY', 'BUSY']");
  });
});

describe('a fleet whose predictor runs on CPU, four runs at once', () => {
  const { template } = synthFleet(fixtureModel('cpu-model'));
  const { ModelServer: modelServer, Worker: worker } = containers(template);

  it('tells coglet its concurrency and reserves no GPU on the standard ECS AMI', () => {
    expect(environmentOf(modelServer)).toMatchObject({ COG_MAX_CONCURRENCY: '4', PORT: '5000' });
    expect(modelServer).not.toHaveProperty('ResourceRequirements');
    expect(JSON.stringify(template.toJSON().Parameters ?? {})).not.toContain('/gpu/');
  });

  it("has the model's entrypoint remove coglet's run folders once older than the model's runs can last (900 s)", () => {
    expect(environmentOf(modelServer)).toMatchObject({ [MODEL_ENTRYPOINT_ENV.keepRunsMinutes]: '25' });
  });

  it('mounts one task-scoped volume for file inputs at the same path in both containers', () => {
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      Volumes: [{ Name: 'inputs', DockerVolumeConfiguration: { Scope: 'task', Driver: 'local' } }],
    });
    const mount = { ContainerPath: MODEL_INPUTS_DIR, SourceVolume: 'inputs', ReadOnly: false };
    expect(modelServer?.MountPoints).toEqual([mount]);
    expect(worker?.MountPoints).toEqual([mount]);
  });

  it('tells the worker where the inputs go, where coglet is (its link) and where to take its webhooks (its own bridge address)', () => {
    expect(environmentOf(worker)).toMatchObject({
      PROGNOZ_INPUTS_DIR: MODEL_INPUTS_DIR,
      PROGNOZ_CALLBACK_PORT: String(WORKER_CALLBACK_PORT),
      PROGNOZ_CALLBACK_HOST: 'auto',
      PROGNOZ_MODEL_URL: 'http://model:5000',
    });
    expect((worker as { Links?: string[] } | undefined)?.Links).toEqual(['ModelServer:model']);
    expect(WORKER_CALLBACK_PORT).not.toBe(5000);
  });
});

describe('what a fleet refuses and allows', () => {
  it('refuses, at synth, a predictor with gpu: true on a fleet without GPUs', () => {
    expect(() => synthFleet(fixtureModel('gpu-model', { fleet: { instanceType: 't3.large', gpus: 0 } }))).toThrow(
      /acme\/gpu-model: \S*gpu-model\/cog\.yaml:3: build\.gpu true: its predictor needs a GPU, but its fleet has gpus: 0/,
    );
  });

  it('allows a CPU predictor on a GPU fleet (CUDA wheels need only the driver) and exposes CUDA to it', () => {
    const { template } = synthFleet(fixtureModel('cpu-model', { fleet: { instanceType: 'g5.xlarge', gpus: 1 } }));
    const modelServer = containers(template).ModelServer;
    expect(environmentOf(modelServer)).toMatchObject({ NVIDIA_DRIVER_CAPABILITIES: 'compute,utility' });
  });

  it('refuses a catalog whose concurrency is not the one cog.yaml says (derived data gone stale)', () => {
    expect(() => synthFleet(fixtureModel('cpu-model', { concurrency: 2 }))).toThrow(
      /concurrency\.max 4.*npm run models/,
    );
  });

  it('refuses a folder that is no Cog predictor', () => {
    expect(() => synthFleet(fixtureModel('cpu-model', { folder: FIXTURE_PREDICTORS }))).toThrow(/no cog\.yaml/);
  });

  it('resolves a relative predictor folder against the repository root', () => {
    const { template } = synthFleet(fixtureModel('cpu-model', { folder: 'test/fixtures/cog/cpu-model' }));
    expect(environmentOf(containers(template).ModelServer)).toMatchObject({ COG_MAX_CONCURRENCY: '4' });
  });
});

describe('the build context of a predictor', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'prognoz-context-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  const contextOf = (setUp: (folder: string) => void) => {
    const folder = path.join(scratch, `model-${Math.random().toString(36).slice(2)}`);
    cpSync(path.join(FIXTURE_PREDICTORS, 'cpu-model'), folder, { recursive: true });
    for (const file of [
      'tests/test_predict.py',
      '__pycache__/predict.cpython-311.pyc',
      'lib/__pycache__/x.pyc',
      '.cog/openapi_schema.json',
      '.cog/tmp/build1/x',
      'weights/small.bin',
    ]) {
      mkdirSync(path.dirname(path.join(folder, file)), { recursive: true });
      writeFileSync(path.join(folder, file), 'x');
    }
    setUp(folder);
    const synthesized = synthFleet(fixtureModel('cpu-model', { folder }));
    const asset = imageAssets(synthesized).find((candidate) => candidate.dockerFile === COG_DOCKERFILE);
    return asset?.context ?? '';
  };

  it('has the code and the generated Dockerfile, not the tests, caches or the rest of .cog/', () => {
    const context = contextOf(() => undefined);
    for (const file of ['cog.yaml', 'predict.py', COG_DOCKERFILE, 'weights/small.bin'])
      expect(existsSync(path.join(context, file)), file).toBe(true);
    for (const file of ['tests', '__pycache__', 'lib/__pycache__', '.cog/openapi_schema.json', '.cog/tmp'])
      expect(existsSync(path.join(context, file)), file).toBe(false);
  });

  it("honours the predictor's own .dockerignore, and keeps the Dockerfile even when it leaves out .cog", () => {
    const context = contextOf((folder) => writeFileSync(path.join(folder, '.dockerignore'), '.cog\nweights\n'));
    expect(existsSync(path.join(context, COG_DOCKERFILE))).toBe(true);
    expect(existsSync(path.join(context, 'weights'))).toBe(false);
    expect(existsSync(path.join(context, 'predict.py'))).toBe(true);
  });
});
