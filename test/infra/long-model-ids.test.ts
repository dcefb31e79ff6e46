import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { addNagChecks } from '../../infra/nag/checks.ts';
import { PrognozStack } from '../../infra/stack.ts';
import { metadataOf, resourcesOfType, type CfnTemplate } from '../../local/template.ts';
import { nestedTemplatesOf } from '../../local/synthesize.ts';
import { LONGEST_MODEL_ID } from '../../shared/catalog/model-id.ts';
import { modelNamesOf, NAME_LIMITS } from '../../shared/catalog/resource-names.ts';
import { DEPLOYED_ENV } from '../support/deployed-template.ts';
import { fixtureModel } from '../support/fleet.ts';

const STACK = 'Prognoz';
/** Two ids of the longest length, differing only in their last character: past any cut. */
const IDS = [LONGEST_MODEL_ID, `${LONGEST_MODEL_ID.slice(0, -1)}x`] as const;
/** CloudFormation's limits on what it names: a stack (a nested one's name is `<parent>-<logical id>-<13>`), a logical id. */
const CLOUDFORMATION = { stackName: 128, logicalId: 255, nestedSuffix: 14 };
/** Each named property the stack sets or the CDK makes, with its service's limit. */
const NAMED: readonly [type: string, property: string, limit: number][] = [
  ['AWS::StepFunctions::StateMachine', 'StateMachineName', NAME_LIMITS.stateMachine],
  ['AWS::ECS::Cluster', 'ClusterName', NAME_LIMITS.cluster],
  ['AWS::SSM::Parameter', 'Name', NAME_LIMITS.parameter],
  ['AWS::Logs::LogGroup', 'LogGroupName', 512],
  ['AWS::ECS::TaskDefinition', 'Family', 255],
  ['AWS::ApplicationAutoScaling::ScalingPolicy', 'PolicyName', 256],
  ['AWS::ECS::CapacityProvider', 'Name', 255],
];

const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
addNagChecks(app);
const stack = new PrognozStack(app, STACK, {
  env: DEPLOYED_ENV,
  models: [fixtureModel('gpu-model', { id: IDS[0] }), fixtureModel('cpu-model', { id: IDS[1] })],
});
const assembly = app.synth();
const parent = assembly.getStackArtifact(stack.artifactId).template as CfnTemplate;
const nested = nestedTemplatesOf(app, stack);
const templates: [string, CfnTemplate][] = [['main', parent], ...nested];

describe(`two models with the longest ids allowed (${LONGEST_MODEL_ID.length} characters), in ${DEPLOYED_ENV.region}`, () => {
  it("synthesize, cdk-nag's checks included, with a nested stack each whose name CloudFormation can make", () => {
    expect(nested.size).toBe(2);
    for (const logicalId of nested.keys())
      expect(`${STACK}-${logicalId}`.length + CLOUDFORMATION.nestedSuffix, logicalId).toBeLessThanOrEqual(
        CLOUDFORMATION.stackName,
      );
    for (const [name, template] of templates)
      for (const logicalId of Object.keys(template.Resources))
        expect(logicalId.length, `${name}: ${logicalId}`).toBeLessThanOrEqual(CLOUDFORMATION.logicalId);
  });

  it('name every resource within its service’s limit, and no two alike', () => {
    for (const [type, property, limit] of NAMED) {
      const names = templates.flatMap(([, template]) =>
        resourcesOfType(template, type).flatMap(([, resource]) => {
          const name = resource.Properties?.[property];
          return typeof name === 'string' ? [name] : [];
        }),
      );
      for (const name of names) expect(name.length, `${type} ${property} ${name}`).toBeLessThanOrEqual(limit);
      expect(new Set(names).size, `${type} ${property}`).toBe(names.length);
    }
  });

  it('name each model’s workflow and cluster by the rule the functions find them with', () => {
    for (const id of IDS) {
      const own = templates.flatMap(([, template]) =>
        resourcesOfType(template, 'AWS::StepFunctions::StateMachine').filter(
          ([, resource]) => metadataOf(resource, 'model') === id,
        ),
      );
      expect(own.map(([, resource]) => resource.Properties?.StateMachineName)).toEqual([
        modelNamesOf(STACK, id).workflow,
      ]);
      const clusters = templates.flatMap(([, template]) =>
        resourcesOfType(template, 'AWS::ECS::Cluster').map(([, resource]) => resource.Properties?.ClusterName),
      );
      expect(clusters).toContain(modelNamesOf(STACK, id).cluster);
    }
  });
});
