import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { COG_DOCKERFILE, cogDockerfile } from '../../infra/cog/dockerfile.ts';
import { predictorFolderOf } from '../../infra/constructs/model-fleet.ts';
import { readCogConfig } from '../../shared/adapters/cog-files.ts';
import { jsonSchemaOf } from '../../shared/catalog/registry.ts';
import { synthFleet } from '../support/fleet.ts';
import { testCatalog } from '../support/catalog.ts';

/** openai/whisper-large-v3-turbo: models/transcribe's code, through links, with its own cog.yaml and `whisper-model`. */
const model = testCatalog.require('openai/whisper-large-v3-turbo');
const folder = predictorFolderOf(model);
const transcribe = path.join(path.dirname(folder), 'transcribe');
const DOWNLOAD = "download_model('large-v3-turbo', output_dir='/opt/whisper/large-v3-turbo')";

describe('the predictor folder of openai/whisper-large-v3-turbo', () => {
  it('links to every Python file of models/transcribe, relatively, and names its Whisper model', () => {
    const shared = readdirSync(transcribe).filter((file) => file.endsWith('.py'));
    expect(shared).toEqual(expect.arrayContaining(['predict.py', 'weights.py', 'whisper_predictor.py']));
    for (const file of [...shared, 'requirements.txt']) {
      expect(lstatSync(path.join(folder, file)).isSymbolicLink(), file).toBe(true);
      expect(readlinkSync(path.join(folder, file))).toBe(`../transcribe/${file}`);
    }
    expect(readFileSync(path.join(folder, 'whisper-model'), 'utf8').trim()).toBe('large-v3-turbo');
  });

  it('takes only its own model as `model`, by default', () => {
    const { input } = jsonSchemaOf(model) as {
      input: { properties: Record<string, { default?: unknown; pattern?: string }> };
    };
    expect(input.properties.model).toMatchObject({ default: 'large-v3-turbo' });
    expect(model.input.safeParse({ audio: 'https://example.com/a.wav', model: 'large-v3-turbo' }).success).toBe(true);
    expect(model.input.safeParse({ audio: 'https://example.com/a.wav', model: 'base' }).success).toBe(false);
  });

  it('downloads large-v3-turbo into /opt/whisper/large-v3-turbo when its GPU image is built', () => {
    const config = readCogConfig(folder);
    expect(config.gpu).toBe(true);
    const dockerfile = cogDockerfile(config);
    expect(dockerfile).toContain('FROM nvidia/cuda:12');
    expect(dockerfile).toContain(DOWNLOAD);
    expect(dockerfile).toContain('pip install --no-deps resemblyzer==0.1.4');
  });
});

describe('the fleet of openai/whisper-large-v3-turbo', () => {
  const synthesized = synthFleet(model);
  const { template } = synthesized;

  it('runs on a GPU: the model server reserves one on g5.xlarge with the GPU-optimized AMI', () => {
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: Match.arrayWith([
        Match.objectLike({
          Name: 'ModelServer',
          ResourceRequirements: [{ Type: 'GPU', Value: '1' }],
          MemoryReservation: 14_000,
        }),
      ]),
    });
    template.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({ InstanceType: 'g5.xlarge' }),
    });
    expect(JSON.stringify(template.toJSON().Parameters ?? {})).toContain('/amazon-linux-2023/gpu/recommended/image_id');
  });

  it('builds its image from a context with the linked files themselves, whisper-model and the generated Dockerfile', () => {
    const assets = JSON.parse(readFileSync(path.join(synthesized.assembly.directory, 'Test.assets.json'), 'utf8')) as {
      dockerImages: Record<string, { source: { directory: string; dockerFile?: string } }>;
    };
    const image = Object.values(assets.dockerImages).find((asset) => asset.source.dockerFile === COG_DOCKERFILE);
    const context = path.join(synthesized.assembly.directory, image?.source.directory ?? 'none');
    for (const file of ['predict.py', 'weights.py', 'whisper_predictor.py', 'requirements.txt']) {
      expect(lstatSync(path.join(context, file)).isFile(), file).toBe(true);
      expect(readFileSync(path.join(context, file), 'utf8'), file).toBe(
        readFileSync(path.join(transcribe, file), 'utf8'),
      );
    }
    expect(readFileSync(path.join(context, 'whisper-model'), 'utf8').trim()).toBe('large-v3-turbo');
    expect(readFileSync(path.join(context, COG_DOCKERFILE), 'utf8')).toContain(DOWNLOAD);
  });
});
