import path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Vpc } from 'aws-cdk-lib/aws-ec2';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { DefinitionBody, Pass, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import * as z from '../../shared/zod-mini.ts';
import { ModelFleet } from '../../infra/constructs/model-fleet.ts';
import { WaiterQueues } from '../../infra/constructs/waiter-queues.ts';
import type { ModelDefinition } from '../../shared/catalog/registry.ts';

/** The fixture Cog predictors (test/fixtures/cog/): `gpu-model` (gpu: true) and `cpu-model` (concurrency 4). */
export const FIXTURE_PREDICTORS = path.resolve(import.meta.dirname, '..', 'fixtures', 'cog');

const FIXTURE_MAX_TASKS = 2;

/**
 * A model built by hand (no catalog): its predictor one of the fixture folders. Its fleet's
 * maxTasksCap is its maxTasks unless given, as the catalog resolves a manifest without one.
 */
export const fixtureModel = (
  predictor: 'gpu-model' | 'cpu-model',
  overrides: { id?: string; fleet?: Partial<ModelDefinition['fleet']>; concurrency?: number; folder?: string } = {},
): ModelDefinition => ({
  id: overrides.id ?? `acme/${predictor}`,
  description: `The ${predictor} fixture predictor.`,
  versionCreatedAt: '2026-11-27T12:00:00.000Z',
  readme: null,
  input: z.strictObject({}),
  output: z.unknown(),
  files: [],
  secrets: [],
  nullWhenOmitted: [],
  streams: false,
  pricePerSecond: '0.01',
  holdSeconds: 30,
  timeouts: { runSeconds: 900, heartbeatSeconds: 5 },
  fleet: {
    ...(predictor === 'gpu-model'
      ? { instanceType: 'g5.xlarge', gpus: 1, memoryMiB: 12_000 }
      : { instanceType: 't3.small', gpus: 0, memoryMiB: 512 }),
    minWarmTasks: 0,
    maxTasks: FIXTURE_MAX_TASKS,
    backlogPerTask: 5,
    ...overrides.fleet,
    maxTasksCap: overrides.fleet?.maxTasksCap ?? overrides.fleet?.maxTasks ?? FIXTURE_MAX_TASKS,
  },
  predictor: {
    folder: overrides.folder ?? path.join(FIXTURE_PREDICTORS, predictor),
    concurrency: overrides.concurrency ?? (predictor === 'cpu-model' ? 4 : 1),
  },
});

/** The ModelFleet construct on its own, in a stack of its own, synthesized. */
export const synthFleet = (model: ModelDefinition, minWarmTasks?: number) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Test', { env: { account: '111111111111', region: 'eu-west-1' } });
  const vpc = new Vpc(stack, 'Vpc', { natGateways: 0 });
  new ModelFleet(stack, 'Fleet', {
    model,
    vpc,
    clusterName: 'test-fleet',
    queue: new Queue(stack, 'Queue'),
    webhookQueue: new Queue(stack, 'Webhooks'),
    waiterQueues: new WaiterQueues(stack),
    bucket: new Bucket(stack, 'Outputs'),
    table: new TableV2(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } }),
    stateMachine: new StateMachine(stack, 'Machine', {
      definitionBody: DefinitionBody.fromChainable(new Pass(stack, 'P')),
    }),
    ...(minWarmTasks !== undefined ? { minWarmTasks } : {}),
  });
  const template = Template.fromStack(stack);
  return { app, stack, template, assembly: app.synth() };
};
