import { describe, expect, it } from 'vitest';
import { metadataOf, resourcesOfType, type CfnResource } from '../../local/template.ts';
import { entryOf } from '../../shared/api/routes.ts';
import { apiConfigFromEnv } from '../../shared/config/api.ts';
import { workerConfigFromEnv } from '../../shared/config/worker.ts';
import { asAccountId } from '../../shared/domain/ids.ts';
import { clusterOfModel, fleetParameterNameOf } from '../../shared/fleet-config.ts';
import { modelStackIdOf } from '../../shared/catalog/resource-names.ts';
import { createPredictionUseCase } from '../../shared/use-cases/create-prediction.ts';
import { STACK_NAME } from '../../infra/app.ts';
import { WORKER_CONTAINER } from '../../infra/constructs/container-names.ts';
import {
  DEPLOYED_ENV,
  deployedTemplate,
  functionsOf,
  resolvedIn,
  variablesOfFunction,
} from '../support/deployed-template.ts';
import { inMemoryService } from '../support/in-memory/service.ts';
import { testCatalog } from '../support/catalog.ts';

const template = deployedTemplate();
const manifestModels = testCatalog.all;

const theFunction = (entry: string): CfnResource => {
  const found = functionsOf(template).find(([, resource]) => metadataOf(resource, 'entry') === entry);
  if (!found) throw new Error(`no function runs ${entry}`);
  return found[1];
};
const apiConfigOf = (handler: Parameters<typeof entryOf>[0]) =>
  apiConfigFromEnv(variablesOfFunction(template, theFunction(entryOf(handler))), testCatalog);

/** The model's own resources: those of its nested stack, found by its construct id. */
const ofModel = (id: string, type: string): [string, CfnResource][] =>
  resourcesOfType(template, type).filter(([logicalId]) => logicalId.startsWith(`${modelStackIdOf(id)}NestedStack`));
const only = <T>(items: readonly T[], what: string): T => {
  if (items.length !== 1) throw new Error(`${what}: ${items.length} found, not one`);
  return items[0] as T;
};

describe(`every model of the manifest, deployed in ${DEPLOYED_ENV.region} (the longest region's name)`, () => {
  it("is each of the manifest's models, the largest Whisper included", () => {
    expect(manifestModels.map((model) => model.id)).toContain('openai/whisper-large-v3-turbo');
  });

  describe.each(manifestModels.map((model) => [model.id, model] as const))('%s', (id, model) => {
    const [, stateMachine] = only(ofModel(id, 'AWS::StepFunctions::StateMachine'), `${id}'s workflow`);
    const workflowArn = `arn:aws:states:${DEPLOYED_ENV.region}:${DEPLOYED_ENV.account}:stateMachine:${String(stateMachine.Properties?.StateMachineName)}`;

    it('has its workflow found by the create and cancel functions, from the ARN prefix they are given', () => {
      expect(apiConfigOf('create-prediction').stateMachineArnOf(id)).toBe(workflowArn);
      expect(apiConfigOf('cancel-prediction').stateMachineArnOf(id)).toBe(workflowArn);
    });

    it('has its fleet found by the deployments routes and the sweeper, and its queue by its worker', () => {
      const [, cluster] = only(ofModel(id, 'AWS::ECS::Cluster'), `${id}'s cluster`);
      const prefix = apiConfigOf('deployments').fleetClusterPrefix;
      if (prefix === null) throw new Error('the deployments routes are given no cluster prefix');
      expect(clusterOfModel(prefix, model)).toBe(cluster.Properties?.ClusterName);

      const [jobsId] = only(
        ofModel(id, 'AWS::SQS::Queue').filter(([, queue]) => metadataOf(queue, 'role') === 'model-queue'),
        `${id}'s job queue`,
      );
      const jobsUrl = resolvedIn(template, { url: { Ref: jobsId } }).url;
      const parameter = only(
        resourcesOfType(template, 'AWS::SSM::Parameter').filter(
          ([, resource]) => resource.Properties?.Name === fleetParameterNameOf(STACK_NAME, model),
        ),
        `${id}'s fleet parameter`,
      );
      expect(JSON.parse(resolvedIn(template, { value: parameter[1].Properties?.Value }).value ?? '')).toMatchObject({
        modelId: id,
        queueUrl: jobsUrl,
        cluster: cluster.Properties?.ClusterName,
      });

      const [, task] = only(
        ofModel(id, 'AWS::ECS::TaskDefinition').filter(([, resource]) => metadataOf(resource, 'role') === 'model-task'),
        `${id}'s task`,
      );
      const containers = (task.Properties?.ContainerDefinitions ?? []) as {
        Name: string;
        Environment?: { Name: string; Value: unknown }[];
      }[];
      const worker = only(
        containers.filter((container) => container.Name === WORKER_CONTAINER),
        `${id}'s worker container`,
      );
      const config = workerConfigFromEnv(
        resolvedIn(template, Object.fromEntries((worker.Environment ?? []).map(({ Name, Value }) => [Name, Value]))),
      );
      expect(config).toMatchObject({ modelId: id, queueUrl: jobsUrl });
    });

    it('takes a prediction through the create use case, which starts that workflow', async () => {
      const config = apiConfigOf('create-prediction');
      const service = { ...inMemoryService(), stateMachineArnOf: config.stateMachineArnOf };
      const owner = asAccountId('acct-deployed');
      await service.accounts.createAccount(owner, service.clock.now(), { balanceKopecks: 1_000_000 });
      const input = model.example ?? {};
      const created = await createPredictionUseCase(service, { model, owner, input, webhook: null });
      if (!created.ok || created.value.kind !== 'created')
        throw new Error(`not created: ${JSON.stringify(created.ok ? created.value.kind : created.error)}`);
      expect(service.workflow.executions(workflowArn).get(created.value.prediction.id)).toMatchObject({
        status: 'RUNNING',
      });
    });
  });
});
