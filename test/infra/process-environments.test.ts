import { describe, expect, it } from 'vitest';
import { WORKER_CONTAINER } from '../../infra/constructs/container-names.ts';
import { FUNCTION_BASE_ENVIRONMENT } from '../../infra/constructs/prognoz-function.ts';
import { metadataOf, resourcesOfType, type CfnResource } from '../../local/template.ts';
import { apiConfigFromEnv } from '../../shared/config/api.ts';
import { authorizerConfigFromEnv } from '../../shared/config/authorizer.ts';
import type { Environment } from '../../shared/config/environment.ts';
import { FINALIZE_ENV, finalizeConfigFromEnv } from '../../shared/config/finalize.ts';
import { processKindOf, variablesOf, type ProcessKind } from '../../shared/config/kinds.ts';
import { sweeperConfigFromEnv } from '../../shared/config/sweeper.ts';
import { webhookSenderConfigFromEnv } from '../../shared/config/webhook-sender.ts';
import { workerConfigFromEnv } from '../../shared/config/worker.ts';
import {
  deployedTemplate,
  functionsOf,
  resolvedIn,
  variablesOfFunction as deployedVariablesOf,
} from '../support/deployed-template.ts';
import { testCatalog } from '../support/catalog.ts';

/** Everything the stack deploys for a deployer, its models' nested stacks (and their workers' tasks) included. */
const template = deployedTemplate();

/** Each kind of process's configuration module, which its process parses its environment with. */
const CONFIG_FROM_ENV: Readonly<Record<ProcessKind, (env: Environment) => unknown>> = {
  api: (env) => apiConfigFromEnv(env, testCatalog),
  authorizer: authorizerConfigFromEnv,
  'webhook-sender': webhookSenderConfigFromEnv,
  sweeper: (env) => sweeperConfigFromEnv(env, testCatalog),
  finalize: finalizeConfigFromEnv,
  worker: workerConfigFromEnv,
  unconfigured: () => ({}),
};

const functions = functionsOf(template);
const variablesOfFunction = (resource: CfnResource) => deployedVariablesOf(template, resource);

const workerTasks = resourcesOfType(template, 'AWS::ECS::TaskDefinition').filter(
  ([, task]) => metadataOf(task, 'role') === 'model-task',
);
const variablesOfWorker = (task: CfnResource) => {
  const containers = (task.Properties?.ContainerDefinitions ?? []) as {
    Name: string;
    Environment?: { Name: string; Value: unknown }[];
  }[];
  const worker = containers.find((container) => container.Name === WORKER_CONTAINER);
  return resolvedIn(template, Object.fromEntries((worker?.Environment ?? []).map(({ Name, Value }) => [Name, Value])));
};

describe("every process's environment", () => {
  it('is set for every function of the stack and every model’s worker', () => {
    expect(functions.length).toBeGreaterThan(20);
    expect(workerTasks.map(([, task]) => metadataOf(task, 'model')).sort()).toEqual(
      testCatalog.offered.map((model) => model.id).sort(),
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
