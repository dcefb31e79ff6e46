import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { PrognozStack } from '../../infra/stack.ts';
import { type CfnTemplate } from '../../local/template.ts';
import { nestedTemplatesOf } from '../../local/synthesize.ts';
import { fixtureModel } from '../support/fleet.ts';

/** CloudFormation's quotas a stack must stay within (its documented limits). */
const CLOUDFORMATION = { resources: 500, parameters: 200, outputs: 200, templateBytes: 1_000_000 };
/** Lambda: all of a function's environment variables together. */
const LAMBDA_ENVIRONMENT_BYTES = 4096;
/** IAM: all inline policies of one role together. */
const IAM_INLINE_POLICY_BYTES = 10_240;
/** A reference that CloudFormation resolves at deploy, at the length of its longest real value (an ARN). */
const RESOLVED_REFERENCE =
  'arn:aws:states:ap-southeast-2:123456789012:stateMachine:PrognozAcmeModel20WorkflowSt-AbCdEfGhIjKl';

const MODELS = Array.from({ length: 20 }, (_, i) =>
  fixtureModel(i % 4 === 0 ? 'gpu-model' : 'cpu-model', { id: `acme/model-${String(i + 1).padStart(2, '0')}` }),
);
const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
const stack = new PrognozStack(app, 'Prognoz', {
  env: { account: '123456789012', region: 'eu-west-1' },
  models: MODELS,
});
const assembly = app.synth();
const parent = assembly.getStackArtifact(stack.artifactId).template as CfnTemplate & {
  Parameters?: object;
  Outputs?: object;
};
const nested = nestedTemplatesOf(app, stack);

/** A value as deployed: every intrinsic function replaced by the longest value it could resolve to. */
const deployedLength = (value: unknown): number => {
  if (typeof value === 'string') return value.length;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value).length;
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + deployedLength(item), 0);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    const [[key, arg] = ['', undefined]] = entries;
    if (entries.length === 1 && key === 'Fn::Join' && Array.isArray(arg)) {
      const [separator, parts] = arg as [string, unknown[]];
      return parts.reduce<number>((sum, part) => sum + deployedLength(part), 0) + separator.length * (parts.length - 1);
    }
    if (entries.length === 1 && (key === 'Ref' || key.startsWith('Fn::'))) return RESOLVED_REFERENCE.length;
    return (
      JSON.stringify(Object.fromEntries(entries.map(([k]) => [k, '']))).length +
      entries.reduce<number>((sum, [, item]) => sum + deployedLength(item), 0)
    );
  }
  return 4;
};

describe('a deployment of 20 models', () => {
  it('is one `cdk deploy`: a main stack and one nested stack a model, each within CloudFormation’s quotas', () => {
    expect(nested.size).toBe(20);
    const stacks: [string, CfnTemplate & { Parameters?: object; Outputs?: object }][] = [['main', parent], ...nested];
    for (const [name, template] of stacks) {
      expect(Object.keys(template.Resources).length, `${name}: resources`).toBeLessThan(CLOUDFORMATION.resources);
      expect(Object.keys(template.Parameters ?? {}).length, `${name}: parameters`).toBeLessThan(
        CLOUDFORMATION.parameters,
      );
      expect(Object.keys(template.Outputs ?? {}).length, `${name}: outputs`).toBeLessThan(CLOUDFORMATION.outputs);
      expect(JSON.stringify(template).length, `${name}: template size`).toBeLessThan(CLOUDFORMATION.templateBytes);
    }
    // Room for many more: a model costs the main stack a couple of resources, not thirty.
    expect(Object.keys(parent.Resources).length).toBeLessThan(CLOUDFORMATION.resources - 100);
    const file = path.join(assembly.directory, `${stack.artifactId}.template.json`);
    expect(readFileSync(file, 'utf8').length).toBeLessThan(CLOUDFORMATION.templateBytes);
  });

  it("keeps every function's environment within Lambda's 4 KB once its references are resolved", () => {
    for (const [id, resource] of Object.entries(parent.Resources)) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const variables = (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables;
      const size = Object.entries(variables ?? {}).reduce(
        (sum, [name, value]) => sum + name.length + deployedLength(value),
        0,
      );
      if (process.env.SHOW_SIZES) console.log('env', id, size);
      expect(size, id).toBeLessThan(LAMBDA_ENVIRONMENT_BYTES);
    }
  });

  it("keeps every role's inline policies within IAM's 10,240 characters once resolved", () => {
    const byRole = new Map<string, number>();
    for (const resource of Object.values(parent.Resources)) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const roles = JSON.stringify(resource.Properties?.Roles);
      byRole.set(roles, (byRole.get(roles) ?? 0) + deployedLength(resource.Properties?.PolicyDocument));
    }
    expect(byRole.size).toBeGreaterThan(10);
    if (process.env.SHOW_SIZES)
      console.log(
        'policies',
        [...byRole.values()].sort((a, b) => b - a).slice(0, 3),
        Object.keys(parent.Resources).length,
      );
    for (const [role, size] of byRole) expect(size, role).toBeLessThan(IAM_INLINE_POLICY_BYTES);
  });
});
