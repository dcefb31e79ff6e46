import { describe, expect, it } from 'vitest';
import { flattenNestedStacks, type NestedTemplate } from '../../local/nested-stacks.ts';
import { synthesizeTemplate } from '../../local/synthesize.ts';
import { testCatalog } from '../support/catalog.ts';

describe('the local runtime reads nested stacks as one template', () => {
  const nested: NestedTemplate = {
    Parameters: { referencetoParentTableRef: { Type: 'String' } },
    Resources: {
      Jobs: { Type: 'AWS::SQS::Queue', Metadata: { 'prognoz:model': 'acme/m' } },
      Machine: {
        Type: 'AWS::StepFunctions::StateMachine',
        Properties: {
          Definition: { 'Fn::Join': ['', [{ Ref: 'Jobs' }, { Ref: 'referencetoParentTableRef' }]] },
          Role: { 'Fn::GetAtt': ['Role', 'Arn'] },
          Region: { Ref: 'AWS::Region' },
        },
        DependsOn: ['Role'],
      } as never,
      Role: { Type: 'AWS::IAM::Role' },
    },
    Outputs: { MachineRef: { Value: { Ref: 'Machine' } } },
  };
  const parent = {
    Resources: {
      Table: { Type: 'AWS::DynamoDB::Table' },
      Model: {
        Type: 'AWS::CloudFormation::Stack',
        Properties: { Parameters: { referencetoParentTableRef: { Ref: 'Table' } } },
      },
      Api: {
        Type: 'AWS::Lambda::Function',
        Properties: { Environment: { Machine: { 'Fn::GetAtt': ['Model', 'Outputs.MachineRef'] } } },
      },
    },
  };

  it("renames nested resources under their stack's id, passes parameters in and outputs out, and leaves pseudo parameters", () => {
    const flat = flattenNestedStacks(parent, (id) => (id === 'Model' ? nested : undefined));
    expect(Object.keys(flat.Resources).sort()).toEqual(['Api', 'ModelJobs', 'ModelMachine', 'ModelRole', 'Table']);
    expect(flat.Resources.ModelJobs?.Metadata).toEqual({ 'prognoz:model': 'acme/m' });
    expect(flat.Resources.ModelMachine?.Properties).toEqual({
      Definition: { 'Fn::Join': ['', [{ Ref: 'ModelJobs' }, { Ref: 'Table' }]] },
      Role: { 'Fn::GetAtt': ['ModelRole', 'Arn'] },
      Region: { Ref: 'AWS::Region' },
    });
    expect((flat.Resources.ModelMachine as { DependsOn?: string[] }).DependsOn).toEqual(['ModelRole']);
    expect(flat.Resources.Api?.Properties).toEqual({ Environment: { Machine: { Ref: 'ModelMachine' } } });
  });

  it('refuses a nested stack whose template is missing, or an output it does not have', () => {
    expect(() => flattenNestedStacks(parent, () => undefined)).toThrow(/nested stack Model/);
    const asking = {
      Resources: {
        ...parent.Resources,
        Api: { Type: 'AWS::Lambda::Function', Properties: { X: { 'Fn::GetAtt': ['Model', 'Outputs.Nope'] } } },
      },
    };
    expect(() => flattenNestedStacks(asking, () => nested)).toThrow(/no output Nope/);
  });

  it("finds every model's queues, workflow and worker task in the synthesized app, though each lives in its own nested stack", () => {
    const template = synthesizeTemplate();
    const text = JSON.stringify(template);
    expect(text).not.toContain('Outputs.');
    expect(text).not.toContain('AWS::CloudFormation::Stack');
    for (const model of testCatalog.offered) {
      const owned = Object.values(template.Resources).filter((r) => r.Metadata?.['prognoz:model'] === model.id);
      expect(owned.map((r) => r.Type).sort(), model.id).toEqual([
        'AWS::ECS::TaskDefinition',
        'AWS::SQS::Queue',
        'AWS::SQS::Queue',
        'AWS::StepFunctions::StateMachine',
      ]);
    }
  });
});
