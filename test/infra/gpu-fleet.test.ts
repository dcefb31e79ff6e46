import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { ModelDefinition } from '../../shared/catalog/registry.ts';
import { fixtureModel, synthFleet } from '../support/fleet.ts';

/** The ModelFleet construct on its own, given a model that needs a GPU (a fixture Cog predictor with gpu: true). */
const fleetFor = (fleet: Partial<ModelDefinition['fleet']>, minWarmTasks?: number) =>
  synthFleet(fixtureModel('gpu-model', { id: 'acme/gpu-model', fleet }), minWarmTasks).template;

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
    // The scaler keeps the minimum (its target's MinCapacity); the template never sets a count.
    template.hasResourceProperties('AWS::ECS::Service', { DesiredCount: Match.absent() });
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
