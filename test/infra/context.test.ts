import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { WAF_REQUESTS_PER_ADDRESS } from '../../infra/constructs/prediction-api.ts';
import { CONTEXT_KEYS } from '../../infra/context.ts';
import { wholeTemplate } from '../../local/synthesize.ts';
import { LEGACY_OWNER_INDEX_NAME, OWNER_INDEX } from '../../shared/adapters/table-keys.ts';

const synth = (context: Record<string, unknown>) => {
  const { app, stack } = buildApp({ bundle: false, context });
  return { parent: Template.fromStack(stack), whole: Template.fromJSON(wholeTemplate(app, stack)) };
};
/** The stack with no setting given, synthesized once for every test that reads it. */
let plainStack: ReturnType<typeof synth> | undefined;
const plain = () => (plainStack ??= synth({}));

describe('an upgrade from a stack whose owner index held every attribute (CDK context)', () => {
  const indexesOf = (context: Record<string, unknown>) =>
    (
      Object.values(
        (Object.keys(context).length === 0 ? plain() : synth(context)).whole.findResources(
          'AWS::DynamoDB::GlobalTable',
        ),
      )[0] as {
        Properties: { GlobalSecondaryIndexes: { IndexName: string; Projection: { ProjectionType: string } }[] };
      }
    ).Properties.GlobalSecondaryIndexes;

  it('keeps the old index beside the new one on the first deploy, one index added, and drops it on the second, one removed', () => {
    const first = indexesOf({ [CONTEXT_KEYS.keepLegacyOwnerIndex]: 'true' });
    const second = indexesOf({});
    expect(first.find((index) => index.IndexName === LEGACY_OWNER_INDEX_NAME)?.Projection).toEqual({
      ProjectionType: 'ALL',
    });
    const names = (indexes: { IndexName: string }[]) => indexes.map((index) => index.IndexName);
    // CloudFormation takes one index added or removed per update, never both.
    expect(names(first).filter((name) => !names(second).includes(name))).toEqual([LEGACY_OWNER_INDEX_NAME]);
    expect(names(second).filter((name) => !names(first).includes(name))).toEqual([]);
    expect(names(first)).toContain(OWNER_INDEX.name);
  });

  it('refuses a value that is not a boolean', () => {
    expect(() => synth({ [CONTEXT_KEYS.keepLegacyOwnerIndex]: 'maybe' })).toThrow(/prognoz:keepLegacyOwnerIndex/);
  });
});

describe("a deployer's settings (CDK context)", () => {
  const { parent, whole } = synth({
    [CONTEXT_KEYS.minWarmTasks]: '{"openai/whisper-base": 1}',
    [CONTEXT_KEYS.alarmEmail]: 'oncall@example.com',
    [CONTEXT_KEYS.waf]: 'true',
  });

  it('keeps the warm tasks asked for, on that model’s fleet only', () => {
    const targets = Object.values(whole.findResources('AWS::ApplicationAutoScaling::ScalableTarget')).map(
      (target) => (target as { Properties: { MinCapacity: number } }).Properties.MinCapacity,
    );
    // Whatever the catalog holds (a run may bring models of its own): one fleet warm, the rest at zero.
    expect(targets.filter((min) => min === 1)).toHaveLength(1);
    expect(targets.filter((min) => min !== 1).every((min) => min === 0)).toBe(true);
    const warm = Object.entries(whole.findResources('AWS::ApplicationAutoScaling::ScalableTarget')).find(
      ([, target]) => (target as { Properties: { MinCapacity: number } }).Properties.MinCapacity === 1,
    );
    expect(warm?.[0]).toMatch(/^OpenaiWhisperBase/);
  });

  it('emails the alarms to the address given, and every alarm notifies the topic when it fires and clears', () => {
    parent.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    const alarms = Object.entries(whole.findResources('AWS::CloudWatch::Alarm')).filter(
      ([id]) => !id.includes('ScaleOnBacklog'),
    );
    expect(alarms.length).toBeGreaterThanOrEqual(4 + 2 * 4);
    for (const [id, alarm] of alarms) {
      const { AlarmActions, OKActions } = (alarm as { Properties: { AlarmActions?: unknown[]; OKActions?: unknown[] } })
        .Properties;
      expect(JSON.stringify(AlarmActions), id).toMatch(/AlarmTopic/);
      expect(JSON.stringify(OKActions), id).toMatch(/AlarmTopic/);
    }
  });

  it('puts a WAF web ACL with a per-address rate rule in front of the API stage', () => {
    parent.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      Rules: Match.arrayWith([
        Match.objectLike({
          Statement: { RateBasedStatement: { Limit: WAF_REQUESTS_PER_ADDRESS, AggregateKeyType: 'IP' } },
        }),
      ]),
    });
    parent.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
  });

  it('has none of these by default: no warm tasks, no subscription, no WAF', () => {
    const { parent: bare } = plain();
    bare.resourceCountIs('AWS::WAFv2::WebACL', 0);
    bare.resourceCountIs('AWS::SNS::Subscription', 0);
    bare.resourceCountIs('AWS::SNS::Topic', 1);
  });

  it('refuses a wrong value, naming its key', () => {
    expect(() => synth({ [CONTEXT_KEYS.minWarmTasks]: '{"acme/nope": 1}' })).toThrow(
      /prognoz:minWarmTasks: no model acme\/nope/,
    );
    expect(() => synth({ [CONTEXT_KEYS.minWarmTasks]: '{"prognoz/echo": -1}' })).toThrow(/prognoz:minWarmTasks/);
    expect(() => synth({ [CONTEXT_KEYS.alarmEmail]: 'not-an-email' })).toThrow(/prognoz:alarmEmail/);
    expect(() => synth({ [CONTEXT_KEYS.waf]: 'sometimes' })).toThrow(/prognoz:waf/);
  });
});

describe('the API stage', () => {
  it('writes an access log of every request', () => {
    const { parent } = plain();
    parent.hasResourceProperties('AWS::ApiGateway::Stage', {
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
    });
    parent.resourceCountIs('AWS::ApiGateway::Account', 1);
  });
});
