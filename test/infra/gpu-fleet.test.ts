import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { Vpc } from 'aws-cdk-lib/aws-ec2';
import { Cluster } from 'aws-cdk-lib/aws-ecs';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { Pass, StateMachine, DefinitionBody } from 'aws-cdk-lib/aws-stepfunctions';
import { describe, expect, it } from 'vitest';
import { ModelFleet } from '../../infra/constructs/model-fleet.ts';
import type { ModelDefinition } from '../../shared/models/registry.ts';
import { echoModel } from '../../shared/models/echo.ts';

/** The ModelFleet construct on its own, given a model that needs a GPU. */
const fleetFor = (fleet: Partial<ModelDefinition['fleet']>, minWarmTasks?: number) => {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Test', { env: { account: '111111111111', region: 'eu-west-1' } });
  const vpc = new Vpc(stack, 'Vpc', { natGateways: 0 });
  const model: ModelDefinition = { ...echoModel, id: 'acme/gpu-model', fleet: { ...echoModel.fleet, instanceType: 'g5.xlarge', gpus: 1, memoryMiB: 12_000, ...fleet } };
  new ModelFleet(stack, 'Fleet', {
    model,
    vpc,
    cluster: new Cluster(stack, 'Cluster', { vpc }),
    queue: new Queue(stack, 'Queue'),
    webhookQueue: new Queue(stack, 'Webhooks'),
    bucket: new Bucket(stack, 'Outputs'),
    table: new TableV2(stack, 'Table', { partitionKey: { name: 'pk', type: AttributeType.STRING } }),
    stateMachine: new StateMachine(stack, 'Machine', { definitionBody: DefinitionBody.fromChainable(new Pass(stack, 'P')) }),
    ...(minWarmTasks !== undefined ? { minWarmTasks } : {}),
  });
  return Template.fromStack(stack);
};

describe('a GPU model fleet', () => {
  it('reserves the GPU for the model server and boots the GPU-optimized ECS AMI', () => {
    const template = fleetFor({});
    template.hasResourceProperties('AWS::ECS::TaskDefinition', {
      ContainerDefinitions: Match.arrayWith([
        Match.objectLike({ Name: 'ModelServer', ResourceRequirements: [{ Type: 'GPU', Value: '1' }] }),
        Match.objectLike({ Name: 'Worker', ResourceRequirements: Match.absent() }),
      ]),
    });
    template.hasResourceProperties('AWS::EC2::LaunchTemplate', {
      LaunchTemplateData: Match.objectLike({ InstanceType: 'g5.xlarge' }),
    });
    const parameters = JSON.stringify(template.toJSON().Parameters ?? {});
    expect(parameters).toContain('/aws/service/ecs/optimized-ami/amazon-linux-2023/gpu/recommended/image_id');
  });

  it('keeps the configured minimum of warm tasks', () => {
    const template = fleetFor({ maxTasks: 4, backlogPerTask: 3 }, 1);
    template.hasResourceProperties('AWS::ECS::Service', { DesiredCount: 1 });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { MinCapacity: 1, MaxCapacity: 4 });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      StepScalingPolicyConfiguration: Match.objectLike({
        AdjustmentType: 'ExactCapacity',
        StepAdjustments: Match.arrayWith([Match.objectLike({ ScalingAdjustment: 4 })]),
      }),
    });
  });

  it('refuses a minimum above the maximum', () => {
    expect(() => fleetFor({ maxTasks: 2 }, 3)).toThrow(/minWarmTasks/);
  });
});
