import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { echoModel } from '../../shared/models/echo.ts';
import { MODELS } from '../../shared/models/registry.ts';

const { stack } = buildApp({ bundle: false });
const template = Template.fromStack(stack);

const definitionOf = (): Record<string, { Type: string; Resource?: string; HeartbeatSeconds?: number; TimeoutSeconds?: number; Catch?: unknown[] }> => {
  const machines = template.findResources('AWS::StepFunctions::StateMachine');
  const [machine] = Object.values(machines) as { Properties: { DefinitionString: { 'Fn::Join': [string, unknown[]] } } }[];
  const text = machine?.Properties.DefinitionString['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'X')).join('') ?? '';
  return (JSON.parse(text) as { States: ReturnType<typeof definitionOf> }).States;
};

describe('the prediction workflow', () => {
  it('dispatches with a task token, a heartbeat and a timeout from the registry', () => {
    const states = definitionOf();
    expect(states.Dispatch).toMatchObject({
      Type: 'Task',
      HeartbeatSeconds: echoModel.timeouts.heartbeatSeconds,
      TimeoutSeconds: echoModel.timeouts.runSeconds,
    });
    expect(states.Dispatch?.Resource).toContain('sqs:sendMessage.waitForTaskToken');
  });

  it('sends every failure to Finalize, and a failing Finalize to a direct write', () => {
    const states = definitionOf();
    for (const name of ['MarkQueued', 'Dispatch']) {
      expect(states[name]?.Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Finalize' }]);
    }
    expect(states.Finalize?.Catch).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.finalizeError', Next: 'MarkFailed' }]);
    expect(states.MarkFailed?.Resource).toContain('dynamodb:updateItem');
  });

  it('sets a timeout on every Task and on the whole execution', () => {
    for (const [name, state] of Object.entries(definitionOf())) {
      if (state.Type === 'Task') expect(state.TimeoutSeconds, name).toBeGreaterThan(0);
    }
    const machines = template.findResources('AWS::StepFunctions::StateMachine');
    const text = JSON.stringify(Object.values(machines)[0]);
    expect(text).toContain('TimeoutSeconds');
  });

  it('gives every model a queue with a dead-letter queue', () => {
    template.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { maxReceiveCount: 5 },
      SqsManagedSseEnabled: true,
    });
    expect(Object.keys(template.findResources('AWS::StepFunctions::StateMachine'))).toHaveLength(MODELS.length);
  });

  it('runs every Lambda on Node 24, arm64', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as { Properties: { Runtime: string; Architectures: string[] } }[];
    expect(functions.length).toBeGreaterThanOrEqual(5);
    for (const fn of functions) {
      expect(fn.Properties.Runtime).toBe('nodejs24.x');
      expect(fn.Properties.Architectures).toEqual(['arm64']);
    }
  });
});
