import type { CfnResource, CfnTemplate } from './cfn-template.ts';

/** A nested stack's template, as CDK synthesizes it (with its parameters and outputs). */
export interface NestedTemplate extends CfnTemplate {
  readonly Parameters?: Record<string, unknown>;
  readonly Outputs?: Record<string, { readonly Value: unknown }>;
}

type Rewrite = (value: unknown) => unknown;

/** Rewrites the intrinsics of a value, depth first; `visit` answers for the ones it takes. */
const rewriteWith =
  (visit: (key: string, arg: unknown, rewrite: Rewrite) => unknown): Rewrite =>
  (value) => {
    const rewrite: Rewrite = (item) => {
      if (Array.isArray(item)) return item.map(rewrite);
      if (item === null || typeof item !== 'object') return item;
      const entries = Object.entries(item);
      if (entries.length === 1) {
        const [[key, arg] = ['', undefined]] = entries;
        const answer = visit(key, arg, rewrite);
        if (answer !== undefined) return answer;
      }
      return Object.fromEntries(entries.map(([key, inner]) => [key, rewrite(inner)]));
    };
    return rewrite(value);
  };

/**
 * One template with the nested stacks' resources in it, as if they had been declared in the
 * parent: each nested resource's logical id gets its stack's logical id in front, a nested
 * parameter becomes what the parent passes it, and a parent's `Outputs.*` attribute of a nested
 * stack becomes the output's value. The local runtime then reads one template, whatever the
 * stack's layout on AWS.
 */
export const flattenNestedStacks = (
  parent: CfnTemplate,
  nestedOf: (logicalId: string) => NestedTemplate | undefined,
): CfnTemplate => {
  const resources: Record<string, CfnResource> = {};
  const outputsOf = new Map<string, Record<string, unknown>>();
  for (const [stackId, resource] of Object.entries(parent.Resources)) {
    if (resource.Type !== 'AWS::CloudFormation::Stack') {
      resources[stackId] = resource;
      continue;
    }
    const nested = nestedOf(stackId);
    if (!nested) throw new Error(`the template of the nested stack ${stackId} is not in the assembly`);
    const passed = (resource.Properties?.Parameters ?? {}) as Record<string, unknown>;
    const own = new Set(Object.keys(nested.Resources));
    const rewrite = rewriteWith((key, arg, inner) => {
      if (key === 'Ref' && typeof arg === 'string') {
        if (arg in passed) return passed[arg];
        if (own.has(arg)) return { Ref: `${stackId}${arg}` };
        return undefined;
      }
      if (key === 'Fn::GetAtt' && Array.isArray(arg) && own.has(String(arg[0])))
        return { 'Fn::GetAtt': [`${stackId}${String(arg[0])}`, ...arg.slice(1).map(inner)] };
      return undefined;
    });
    for (const [id, inner] of Object.entries(nested.Resources)) {
      const dependsOn = (inner as { DependsOn?: string | string[] }).DependsOn;
      resources[`${stackId}${id}`] = {
        ...(rewrite(inner) as CfnResource),
        ...(dependsOn === undefined ? {} : { DependsOn: [dependsOn].flat().map((dep) => `${stackId}${dep}`) }),
      };
    }
    outputsOf.set(
      stackId,
      Object.fromEntries(Object.entries(nested.Outputs ?? {}).map(([name, output]) => [name, rewrite(output.Value)])),
    );
  }
  const resolveOutputs = rewriteWith((key, arg) => {
    if (key !== 'Fn::GetAtt' || !Array.isArray(arg)) return undefined;
    const [stackId, attribute] = arg.map(String);
    const outputs = stackId === undefined ? undefined : outputsOf.get(stackId);
    if (!outputs || !attribute?.startsWith('Outputs.')) return undefined;
    const name = attribute.slice('Outputs.'.length);
    if (!(name in outputs)) throw new Error(`the nested stack ${stackId} has no output ${name}`);
    return outputs[name];
  });
  return { Resources: resolveOutputs(resources) as Record<string, CfnResource> };
};
