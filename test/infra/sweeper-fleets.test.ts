import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { METADATA } from '../../infra/constructs/metadata.ts';
import { ModelStack } from '../../infra/constructs/model-stack.ts';
import { Sweeper, type SweptFleet } from '../../infra/constructs/sweeper.ts';
import { WaiterQueues } from '../../infra/constructs/waiter-queues.ts';
import { WorkflowArns } from '../../infra/constructs/workflow-arns.ts';
import { SWEEPER_ENV } from '../../shared/config/sweeper.ts';
import { fleetClusterName } from '../../shared/fleet-config.ts';
import { parseFleetParameter } from '../../shared/fleet-parameter.ts';
import { modelStackIdOf } from '../../shared/catalog/resource-names.ts';
import { fixtureModel } from '../support/fleet.ts';

type Resource = { Type: string; Properties: Record<string, unknown>; Metadata?: Record<string, unknown> };
interface Statement {
  Action: string | string[];
  Resource: unknown;
}

const MODELS = [fixtureModel('cpu-model', { id: 'acme/small' }), fixtureModel('gpu-model', { id: 'acme/large' })];

/** The sweeper beside two models' nested stacks, as the main stack composes them, synthesized. */
const synthesize = (fleetsOf: (stacks: readonly ModelStack[]) => readonly SweptFleet[] | undefined) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Prognoz', { env: { account: '123456789012', region: 'eu-west-1' } });
  const vpc = new Vpc(stack, 'Network', {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'public', subnetType: SubnetType.PUBLIC }],
  });
  const table = new TableV2(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } });
  const webhookQueue = new Queue(stack, 'Webhooks');
  const workflows = new WorkflowArns(stack);
  const waiterQueues = new WaiterQueues(stack);
  const models = MODELS.map((model) => {
    const id = modelStackIdOf(model.id);
    return new ModelStack(stack, id, {
      model,
      vpc,
      table,
      bucket: new Bucket(stack, `${id}Outputs`),
      webhookQueue,
      waiterQueues,
      finalize: LambdaFunction.fromFunctionArn(
        stack,
        `${id}Finalize`,
        'arn:aws:lambda:eu-west-1:123456789012:function:finalize',
      ),
      alarmTopic: new Topic(stack, `${id}Alarms`),
      clusterName: fleetClusterName(stack.stackName, model),
      stateMachineName: workflows.nameOf(model),
    });
  });
  const fleets = fleetsOf(models);
  new Sweeper(stack, 'Sweeper', {
    table,
    webhookQueue,
    workflows,
    waiterQueues,
    deadJobQueues: models.map((model) => model.queue.deadLetterQueue),
    ...(fleets === undefined ? {} : { fleets }),
  });
  return { stack, models, template: Template.fromStack(stack) };
};

const withFleets = synthesize((stacks) =>
  stacks.map((model, index) => ({
    modelId: MODELS[index]?.id ?? '',
    queue: model.queue.queue,
    cluster: model.fleet.cluster,
    service: model.fleet.service,
  })),
);
const withoutFleets = synthesize(() => undefined);

const sweeperOf = (template: Template): Resource => {
  const [sweeper] = Object.values(template.findResources('AWS::Lambda::Function')).filter((fn) =>
    JSON.stringify(fn).includes('functions/sweeper/sweep.ts'),
  ) as Resource[];
  if (!sweeper) throw new Error('no sweeper in the template');
  return sweeper;
};
const variablesOf = (fn: Resource) =>
  (fn.Properties.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {};
const statementsOf = (template: Template): Statement[] =>
  Object.values(template.findResources('AWS::IAM::Policy'))
    .flatMap((policy) => (policy as Resource).Properties.PolicyDocument as { Statement: Statement[] })
    .flatMap((document) => document.Statement);
const actionsOf = (statement: Statement) => [statement.Action].flat();

/** The nested stack output a reference from the main stack resolves through. */
const outputOf = (models: readonly ModelStack[], reference: unknown): unknown => {
  const getAtt = (reference as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
  if (!getAtt) return reference;
  const [stackId, attribute] = getAtt;
  const model = models.find(
    (candidate) =>
      candidate.nestedStackResource && withFleets.stack.getLogicalId(candidate.nestedStackResource) === stackId,
  );
  if (!model) throw new Error(`${stackId} is no model's nested stack`);
  const outputs = Template.fromStack(model).toJSON().Outputs as Record<string, { Value: unknown }>;
  return outputs[attribute.replace(/^Outputs\./, '')]?.Value;
};

/** The logical ids, in its nested stack, of a model's job queue, fleet cluster and service. */
const idsOf = (model: ModelStack) => {
  const nested = Template.fromStack(model);
  const only = (type: string, props: Record<string, unknown> = {}) => {
    const ids = Object.keys(nested.findResources(type, props));
    if (ids.length !== 1 || !ids[0]) throw new Error(`${ids.length} ${type} in ${model.node.id}`);
    return ids[0];
  };
  return {
    queue: only('AWS::SQS::Queue', { Metadata: { [METADATA.role]: 'model-queue' } }),
    cluster: only('AWS::ECS::Cluster'),
    service: only('AWS::ECS::Service'),
  };
};

/** A fleet parameter's JSON, each reference in it standing for its target in the model's nested stack. */
const resolvedJson = (value: unknown): unknown => {
  const parts = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1];
  if (!parts) throw new Error(`not a JSON with references: ${JSON.stringify(value)}`);
  const text = parts
    // A reference stands for its value as the JSON text of its target, escaped within the string it sits in.
    .map((part) =>
      typeof part === 'string' ? part : JSON.stringify(JSON.stringify(outputOf(withFleets.models, part))).slice(1, -1),
    )
    .join('');
  return parseFleetParameter('in the template', text);
};

describe('the sweeper wakes fleets at zero', () => {
  it("lists each fleet in a parameter under one path: its model, its queue's URL, its cluster, its service", () => {
    const parameters = Object.values(withFleets.template.findResources('AWS::SSM::Parameter')) as Resource[];
    expect(parameters.map((parameter) => parameter.Properties.Name)).toEqual([
      '/Prognoz/fleets/acme-small',
      '/Prognoz/fleets/acme-large',
    ]);
    expect(parameters.map((parameter) => parameter.Properties.Type)).toEqual(['String', 'String']);
    expect(parameters.map((parameter) => resolvedJson(parameter.Properties.Value))).toEqual(
      withFleets.models.map((model, index) => {
        const ids = idsOf(model);
        return {
          modelId: MODELS[index]?.id,
          queueUrl: JSON.stringify({ Ref: ids.queue }),
          cluster: JSON.stringify({ Ref: ids.cluster }),
          service: JSON.stringify({ 'Fn::GetAtt': [ids.service, 'Name'] }),
        };
      }),
    );
  });

  it(`tells the function the path in ${SWEEPER_ENV.fleetsPath}, a variable the local runtime (whose workers always run) leaves out`, () => {
    const sweeper = sweeperOf(withFleets.template);
    expect(variablesOf(sweeper)[SWEEPER_ENV.fleetsPath]).toBe('/Prognoz/fleets');
    expect(sweeper.Metadata?.[METADATA.awsOnlyEnv]).toBe(SWEEPER_ENV.fleetsPath);
  });

  it('may read that path, the fleets’ queues’ attributes, and describe and update their services, and nothing more', () => {
    const statements = statementsOf(withFleets.template);
    const only = (action: string) => (statement: Statement) => actionsOf(statement).join() === action;
    const isEcs = (statement: Statement) => actionsOf(statement).some((action) => action.startsWith('ecs:'));
    const added = [only('ssm:GetParametersByPath'), only('sqs:GetQueueAttributes'), isEcs];
    const resourcesOf = (statement: Statement | undefined) =>
      [statement?.Resource].flat().map((arn) => outputOf(withFleets.models, arn));

    const [paths, queueReads, ecs] = added.map((which) => statements.filter(which));
    expect(paths).toHaveLength(1);
    expect(paths?.[0]?.Resource).toEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ssm:eu-west-1:123456789012:parameter/Prognoz/fleets']],
    });
    expect(queueReads).toHaveLength(1);
    expect(resourcesOf(queueReads?.[0])).toEqual(
      withFleets.models.map((model) => ({ 'Fn::GetAtt': [idsOf(model).queue, 'Arn'] })),
    );
    expect(ecs).toHaveLength(1);
    expect(ecs?.flatMap(actionsOf).sort()).toEqual(['ecs:DescribeServices', 'ecs:UpdateService']);
    expect(resourcesOf(ecs?.[0])).toEqual(withFleets.models.map((model) => ({ Ref: idsOf(model).service })));
    // Everything else is what the sweeper has without fleets.
    expect(statements.filter((statement) => !added.some((which) => which(statement)))).toEqual(
      statementsOf(withoutFleets.template),
    );
  });

  it('without fleets, lists none, sets no variable and grants nothing more', () => {
    expect(withoutFleets.template.findResources('AWS::SSM::Parameter')).toEqual({});
    expect(variablesOf(sweeperOf(withoutFleets.template))[SWEEPER_ENV.fleetsPath]).toBeUndefined();
    expect(JSON.stringify(statementsOf(withoutFleets.template))).not.toMatch(/ecs:|ssm:/);
  });
});
