import { METADATA } from '../infra/constructs/metadata.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './paths.ts';

// Reading a synthesized template needs no CDK: the synthesis is in synthesize.ts, so that a
// process that only reads one (the local runtime's) does not load the CDK's half a gigabyte.
export type { CfnResource, CfnTemplate } from './cfn-template.ts';
import type { CfnResource, CfnTemplate } from './cfn-template.ts';

export const resourcesOfType = (template: CfnTemplate, type: string): [string, CfnResource][] =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

export const metadataOf = (resource: CfnResource, key: keyof typeof METADATA): string | undefined => {
  const value = resource.Metadata?.[METADATA[key]];
  return typeof value === 'string' ? value : undefined;
};

/** Local stand-ins for the physical names and attributes CloudFormation would give. */
export interface LocalBindings {
  ref(logicalId: string): string;
  getAtt(logicalId: string, attribute: string): string;
}

export const PSEUDO: Readonly<Record<string, string>> = {
  'AWS::Partition': 'aws',
  'AWS::Region': LOCAL_REGION,
  'AWS::AccountId': LOCAL_ACCOUNT,
  'AWS::URLSuffix': 'amazonaws.com',
};

/**
 * Resolves the few intrinsics a synthesized definition uses: Ref, Fn::GetAtt, Fn::Join. The
 * pseudo parameters are the local runtime's unless others are given (a test of a deployment's).
 */
export const resolveIntrinsics = (
  value: unknown,
  bindings: LocalBindings,
  pseudo: Readonly<Record<string, string>> = PSEUDO,
): unknown => {
  if (Array.isArray(value)) return value.map((item) => resolveIntrinsics(item, bindings, pseudo));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const [first] = entries;
  if (entries.length === 1 && first) {
    const [key, arg] = first;
    if (key === 'Ref' && typeof arg === 'string') return pseudo[arg] ?? bindings.ref(arg);
    if (key === 'Fn::GetAtt' && Array.isArray(arg)) return bindings.getAtt(String(arg[0]), String(arg[1]));
    if (key === 'Fn::Join' && Array.isArray(arg)) {
      const [separator, parts] = arg as unknown as [string, unknown[]];
      return parts.map((part) => String(resolveIntrinsics(part, bindings, pseudo))).join(separator);
    }
    if (key.startsWith('Fn::')) throw new Error(`the local runtime cannot resolve ${key}`);
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, resolveIntrinsics(item, bindings, pseudo)]));
};

export { localFunctionArn, localStateMachineArn } from './paths.ts';
