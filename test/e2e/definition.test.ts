import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { PSEUDO } from '../../local/template.ts';
import { wholeTemplate } from '../../local/synthesize.ts';
import { runtime } from '../support/api.ts';

interface Executed {
  machines: { logicalId: string; model: string; definition: unknown }[];
  bindings: Record<string, string>;
}

const tokenKey = (part: Record<string, unknown>): string => {
  if (typeof part.Ref === 'string') return `Ref:${part.Ref}`;
  const [id, attribute] = part['Fn::GetAtt'] as [string, string];
  return `GetAtt:${id}.${attribute}`;
};

describe('the workflow the local runtime executes', () => {
  it('is the synthesized definition, with only its intrinsics bound to local resources', async () => {
    const executed = (await (await fetch(`${runtime().origin}/_local/definitions`)).json()) as Executed;
    const { app, stack } = buildApp({ bundle: false });
    const template = wholeTemplate(app, stack) as {
      Resources: Record<
        string,
        {
          Type: string;
          Properties: { DefinitionString: { 'Fn::Join': [string, (string | Record<string, unknown>)[]] } };
        }
      >;
    };
    const synthesized = Object.entries(template.Resources).filter(
      ([, r]) => r.Type === 'AWS::StepFunctions::StateMachine',
    );

    expect(executed.machines.map((m) => m.logicalId).sort()).toEqual(synthesized.map(([id]) => id).sort());
    for (const [logicalId, resource] of synthesized) {
      const [separator, parts] = resource.Properties.DefinitionString['Fn::Join'];
      const expected = parts
        .map((part) => {
          if (typeof part === 'string') return part;
          const key = tokenKey(part);
          const value = key.startsWith('Ref:AWS::') ? PSEUDO[key.slice(4)] : executed.bindings[key];
          if (value === undefined) throw new Error(`the runtime bound no value for ${key}`);
          return value;
        })
        .join(separator);
      expect(executed.machines.find((m) => m.logicalId === logicalId)?.definition).toEqual(JSON.parse(expected));
    }
  });
});
