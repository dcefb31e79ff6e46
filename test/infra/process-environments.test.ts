import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { WORKER_CONTAINER } from '../../infra/constructs/container-names.ts';
import { FUNCTION_BASE_ENVIRONMENT } from '../../infra/constructs/prognoz-function.ts';
import {
  metadataOf,
  resolveIntrinsics,
  resourcesOfType,
  type CfnResource,
  type CfnTemplate,
  type LocalBindings,
} from '../../local/template.ts';
import { wholeTemplate } from '../../local/synthesize.ts';
import { apiConfigFromEnv } from '../../shared/config/api.ts';
import { authorizerConfigFromEnv } from '../../shared/config/authorizer.ts';
import type { Environment } from '../../shared/config/environment.ts';
import { FINALIZE_ENV, finalizeConfigFromEnv } from '../../shared/config/finalize.ts';
import { processKindOf, variablesOf, type ProcessKind } from '../../shared/config/kinds.ts';
import { sweeperConfigFromEnv } from '../../shared/config/sweeper.ts';
import { webhookSenderConfigFromEnv } from '../../shared/config/webhook-sender.ts';
import { workerConfigFromEnv } from '../../shared/config/worker.ts';
import { allModels } from '../../shared/models/registry.ts';

const { app, stack } = buildApp({ bundle: false });
/** Everything the stack deploys, its models' nested stacks (and their workers' tasks) included. */
const template = wholeTemplate(app, stack);

/** Each kind of process's configuration module, which its process parses its environment with. */
const CONFIG_FROM_ENV: Readonly<Record<ProcessKind, (env: Environment) => unknown>> = {
  api: apiConfigFromEnv,
  authorizer: authorizerConfigFromEnv,
  'webhook-sender': webhookSenderConfigFromEnv,
  sweeper: sweeperConfigFromEnv,
  finalize: finalizeConfigFromEnv,
  worker: workerConfigFromEnv,
  unconfigured: () => ({}),
};

/** What CloudFormation would name each resource, in the shape AWS gives: a queue's URL, a pool's id. */
const deployedNames = (deployed: CfnTemplate): LocalBindings => ({
  ref: (id) => {
    const type = deployed.Resources[id]?.Type;
    if (type === 'AWS::SQS::Queue') return `https://sqs.eu-west-1.amazonaws.com/123456789012/${id}`;
    if (type === 'AWS::S3::Bucket') return id.toLowerCase();
    if (type === 'AWS::Cognito::UserPool') return `eu-west-1_${id.slice(0, 9)}`;
    if (type === undefined) throw new Error(`${id} is not in the template`);
    return id;
  },
  getAtt: (id, attribute) => `arn:aws:${id}:${attribute}`,
});

const resolved = (variables: Readonly<Record<string, unknown>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [name, String(resolveIntrinsics(value, deployedNames(template)))]),
  );

const functions = resourcesOfType(template, 'AWS::Lambda::Function').filter(
  ([, resource]) => metadataOf(resource, 'entry') !== undefined,
);
const variablesOfFunction = (resource: CfnResource) =>
  resolved((resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {});

const workerTasks = resourcesOfType(template, 'AWS::ECS::TaskDefinition').filter(
  ([, task]) => metadataOf(task, 'role') === 'model-task',
);
const variablesOfWorker = (task: CfnResource) => {
  const containers = (task.Properties?.ContainerDefinitions ?? []) as {
    Name: string;
    Environment?: { Name: string; Value: unknown }[];
  }[];
  const worker = containers.find((container) => container.Name === WORKER_CONTAINER);
  return resolved(Object.fromEntries((worker?.Environment ?? []).map(({ Name, Value }) => [Name, Value])));
};

describe("every process's environment", () => {
  it('is set for every function of the stack and every model’s worker', () => {
    expect(functions.length).toBeGreaterThan(20);
    expect(workerTasks.map(([, task]) => metadataOf(task, 'model')).sort()).toEqual(
      allModels()
        .map((model) => model.id)
        .sort(),
    );
  });

  it.each(functions.map(([id, resource]) => [id, resource] as const))(
    '%s holds exactly what its kind’s configuration module reads, and that module parses it',
    (_, resource) => {
      const kind = processKindOf(metadataOf(resource, 'config'));
      const variables = variablesOfFunction(resource);
      // Every function starts with the same two; the rest is its kind's.
      expect(variables).toMatchObject(FUNCTION_BASE_ENVIRONMENT);
      const own = Object.fromEntries(
        Object.entries(variables).filter(([name]) => !(name in FUNCTION_BASE_ENVIRONMENT)),
      );
      expect(Object.keys(own).filter((name) => !variablesOf(kind).includes(name))).toEqual([]);
      expect(() => CONFIG_FROM_ENV[kind](own)).not.toThrow();
    },
  );

  it.each(workerTasks.map(([, task]) => [metadataOf(task, 'model'), task] as const))(
    'the worker of %s holds exactly what the worker’s configuration module reads, and that module parses it',
    (model, task) => {
      const variables = variablesOfWorker(task);
      expect(Object.keys(variables).filter((name) => !variablesOf('worker').includes(name))).toEqual([]);
      expect(workerConfigFromEnv(variables)).toMatchObject({ modelId: model });
    },
  );

  it('names a missing or malformed variable and the process whose it is', () => {
    const [, finalize] = functions.find(([, resource]) => metadataOf(resource, 'config') === 'finalize') ?? [];
    if (!finalize) throw new Error('no Finalize function');
    const withoutQueue = Object.fromEntries(
      Object.entries(variablesOfFunction(finalize)).filter(([name]) => name !== FINALIZE_ENV.webhookQueueUrl),
    );
    expect(() => finalizeConfigFromEnv(withoutQueue)).toThrow("the Finalize function's environment is not valid");
    expect(() => finalizeConfigFromEnv(withoutQueue)).toThrow(FINALIZE_ENV.webhookQueueUrl);
    expect(() => finalizeConfigFromEnv({ ...withoutQueue, [FINALIZE_ENV.webhookQueueUrl]: 'queue' })).toThrow(
      FINALIZE_ENV.webhookQueueUrl,
    );
  });
});
