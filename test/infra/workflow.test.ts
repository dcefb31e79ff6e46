import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { wholeTemplate } from '../../local/synthesize.ts';
import { dispatchTimeoutSeconds } from '../../infra/workflow/prediction-chain.ts';
import { SWEEP_INDEX } from '../../shared/adapters/table-keys.ts';
import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { testCatalog } from '../support/catalog.ts';

const echoModel = testCatalog.require('prognoz/echo');
const MODELS = testCatalog.offered;
const { app, stack } = buildApp({ bundle: false });
/** Everything the stack deploys, its models' nested stacks included. */
const template = Template.fromJSON(wholeTemplate(app, stack));

const definitionOf = (): Record<
  string,
  {
    Type: string;
    Resource?: string;
    HeartbeatSeconds?: number;
    TimeoutSeconds?: number;
    Catch?: unknown[];
    End?: boolean;
  }
> => {
  const machines = template.findResources('AWS::StepFunctions::StateMachine');
  const [machine] = Object.values(machines) as {
    Properties: { DefinitionString: { 'Fn::Join': [string, unknown[]] } };
  }[];
  const text =
    machine?.Properties.DefinitionString['Fn::Join'][1]
      .map((part) => (typeof part === 'string' ? part : 'X'))
      .join('') ?? '';
  return (JSON.parse(text) as { States: ReturnType<typeof definitionOf> }).States;
};

describe('the prediction workflow', () => {
  it('dispatches with a task token and no heartbeat: waiting in the queue is not dying', () => {
    const states = definitionOf();
    expect(states.Dispatch).toMatchObject({
      Type: 'Task',
      TimeoutSeconds: dispatchTimeoutSeconds(phaseLimitsOf(echoModel)),
    });
    expect(states.Dispatch).not.toHaveProperty('HeartbeatSeconds');
    expect(states.Dispatch?.Resource).toContain('sqs:sendMessage.waitForTaskToken');
    // The queue limit, then every attempt with its lease and another wait, come before the workflow's own limit.
    const limits = phaseLimitsOf(echoModel);
    expect(states.Dispatch?.TimeoutSeconds).toBeGreaterThan(
      limits.queueSeconds + limits.maxAttempts * (limits.runSeconds + limits.leaseSeconds),
    );
  });

  it('is one state on the way to success, and Finalize only when Dispatch fails', () => {
    const states = definitionOf();
    expect(Object.keys(states).sort()).toEqual(['Dispatch', 'Finalize']);
    expect(states.Dispatch?.Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Finalize' }]);
    expect(states.Dispatch).toMatchObject({ End: true });
    expect(states.Finalize).toMatchObject({ End: true });
  });

  it('carries nothing but the prediction id into the queue', () => {
    expect(JSON.stringify(definitionOf().Dispatch)).toMatch(
      /"MessageBody":\{"predictionId\.\$":"\$\.predictionId","taskToken\.\$":"\$\$\.Task\.Token"\}/,
    );
  });

  it('sets a timeout on every Task and on the whole execution', () => {
    for (const [name, state] of Object.entries(definitionOf())) {
      if (state.Type === 'Task') expect(state.TimeoutSeconds, name).toBeGreaterThan(0);
    }
    const machines = template.findResources('AWS::StepFunctions::StateMachine');
    const text = JSON.stringify(Object.values(machines)[0]);
    expect(text).toContain('TimeoutSeconds');
  });

  it("gives every model a queue whose visibility is the worker's lease, with a dead-letter queue after a bounded number of receives", () => {
    const limits = phaseLimitsOf(echoModel);
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: limits.leaseSeconds,
      RedrivePolicy: { maxReceiveCount: 2 * limits.maxAttempts + 3 },
      SqsManagedSseEnabled: true,
    });
    expect(Object.keys(template.findResources('AWS::StepFunctions::StateMachine'))).toHaveLength(MODELS.length);
  });

  it('has a sweeper on a one-minute schedule, told of executions that end without success, draining the model dead-letter queues', () => {
    const [sweeper] = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([, fn]) =>
      JSON.stringify(fn).includes('functions/sweeper/sweep.ts'),
    );
    expect(sweeper).toBeDefined();
    const sweeperId = sweeper?.[0] ?? '';
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [sweeperId, 'Arn'] } })],
    });
    template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: Match.objectLike({
        source: ['aws.states'],
        'detail-type': ['Step Functions Execution Status Change'],
        detail: Match.objectLike({ status: ['FAILED', 'TIMED_OUT', 'ABORTED'] }),
      }),
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [sweeperId, 'Arn'] } })],
    });
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')).filter((m) =>
      JSON.stringify(m).includes(sweeperId),
    );
    expect(mappings).toHaveLength(MODELS.length);
  });

  it('indexes only the predictions the sweeper may have to look at, over shards', () => {
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      GlobalSecondaryIndexes: Match.arrayWith([
        Match.objectLike({
          IndexName: SWEEP_INDEX.name,
          KeySchema: [
            { AttributeName: SWEEP_INDEX.partition, KeyType: 'HASH' },
            { AttributeName: SWEEP_INDEX.sort, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'KEYS_ONLY' },
        }),
      ]),
    });
  });

  it('runs every Lambda on Node 24, arm64', () => {
    // Ours, not the CDK's own helpers (the reference page's bucket deployment and auto-delete).
    const functions = (
      Object.values(template.findResources('AWS::Lambda::Function')) as {
        Metadata?: Record<string, unknown>;
        Properties: { Runtime: string; Architectures: string[] };
      }[]
    ).filter((fn) => fn.Metadata?.['prognoz:entry']);
    expect(functions.length).toBeGreaterThanOrEqual(5);
    for (const fn of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
    }
  });
});
