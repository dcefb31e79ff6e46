import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { CfnPolicy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { addNagChecks, describeFinding, describeSuppression, nagFindings, triage } from '../../infra/nag/checks.ts';
import { NAG_SUPPRESSIONS } from '../../infra/nag/suppressions.ts';
import { inside, wildcardResourceOnlyFor, type NagSuppression } from '../../infra/nag/where.ts';

const { app } = buildApp({ bundle: false });
addNagChecks(app);
const synthesisError = (() => {
  try {
    app.synth();
    return null;
  } catch (error) {
    return error;
  }
})();
const { unsuppressed, unused } = triage(nagFindings(app), NAG_SUPPRESSIONS);

describe("cdk-nag's AwsSolutions checks of the stack, its models' nested stacks included", () => {
  it('find nothing that is neither fixed nor accepted with a reason', () => {
    expect(unsuppressed.map(describeFinding)).toEqual([]);
  });

  it('accept only what is there: every suppression still accepts a finding', () => {
    expect(unused.map(describeSuppression)).toEqual([]);
  });

  it('run on every synthesis, which the stack passes', () => {
    expect(synthesisError).toBeNull();
  });
});

/** A stack of its own, with the checks on (and the given suppressions) or off. */
const bareApp = (suppressions?: readonly NagSuppression[]) => {
  const bare = new App();
  const stack = new Stack(bare, 'Bare');
  if (suppressions) addNagChecks(bare, suppressions);
  return { app: bare, stack };
};

describe('the checks', () => {
  it('fail the synthesis on an error no suppression accepts, naming the rule and the resource', () => {
    const { app: bare, stack } = bareApp(NAG_SUPPRESSIONS);
    new Bucket(stack, 'Plain');
    expect(() => bare.synth()).toThrow(/AwsSolutions-S1[\s\S]*Bare\/Plain\/Resource/);
  });

  it('accept a wildcard resource only while the policy allows nothing but the listed actions on it', () => {
    const { app: bare, stack } = bareApp();
    const role = new Role(stack, 'Puller', { assumedBy: new ServicePrincipal('ecs-tasks.amazonaws.com') });
    role.addToPolicy(new PolicyStatement({ actions: ['ecr:GetAuthorizationToken'], resources: ['*'] }));
    const policy = role.node.findAll().find((node): node is CfnPolicy => node instanceof CfnPolicy);
    if (!policy) throw new Error('the role has no policy');
    const onlyTokens = wildcardResourceOnlyFor(['ecr:GetAuthorizationToken']);
    expect(onlyTokens.matches(policy)).toBe(true);

    role.addToPolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: ['*'] }));
    expect(onlyTokens.matches(policy)).toBe(false);
    const accepted: NagSuppression = {
      rule: 'AwsSolutions-IAM5',
      items: /^Resource::\*$/,
      where: onlyTokens,
      reason: 'only the token',
    };
    const { unsuppressed: left, unused: stale } = triage(nagFindings(bare), [accepted]);
    expect(left.map((finding) => `${finding.rule}[${finding.item ?? ''}]`)).toContain('AwsSolutions-IAM5[Resource::*]');
    expect(stale).toEqual([accepted]);
  });

  it('match a construct of ours by its class and its path inside it, wherever it sits', () => {
    const { stack } = bareApp();
    class Holder extends Role {}
    const nested = new Holder(new NestedStack(stack, 'Deeper'), 'Holder', {
      assumedBy: new ServicePrincipal('ecs.amazonaws.com'),
    });
    nested.addToPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: ['*'] }));
    const policy = nested.node.findAll().find((node): node is CfnPolicy => node instanceof CfnPolicy);
    if (!policy) throw new Error('the role has no policy');
    expect(inside(Holder, 'DefaultPolicy/Resource').matches(policy)).toBe(true);
    expect(inside(Holder, 'Resource').matches(policy)).toBe(false);
  });
});
