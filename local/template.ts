import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NestedStack, type App, type Stack } from 'aws-cdk-lib';
import { METADATA } from '../infra/constructs/metadata.ts';
import { buildApp } from '../infra/app.ts';
import { flattenNestedStacks, type NestedTemplate } from './nested-stacks.ts';
import { LOCAL_ACCOUNT, LOCAL_REGION } from './paths.ts';

export type { CfnResource, CfnTemplate } from './cfn-template.ts';
import type { CfnResource, CfnTemplate } from './cfn-template.ts';

/** The templates of a stack's nested stacks, by the logical id of each one's resource in the stack. */
export const nestedTemplatesOf = (app: App, stack: Stack): Map<string, NestedTemplate> => {
  const assembly = app.synth();
  return new Map(
    stack.node
      .findAll()
      .filter((child): child is NestedStack => NestedStack.isNestedStack(child))
      .flatMap((child) => {
        const resource = child.nestedStackResource;
        if (!resource) return [];
        const file = path.join(assembly.directory, child.templateFile);
        return [[stack.getLogicalId(resource), JSON.parse(readFileSync(file, 'utf8')) as NestedTemplate] as const];
      }),
  );
};

/** Everything a stack deploys as one template: its own resources and its nested stacks'. */
export const wholeTemplate = (app: App, stack: Stack): CfnTemplate => {
  const nested = nestedTemplatesOf(app, stack);
  const parent = app.synth().getStackArtifact(stack.artifactId).template as CfnTemplate;
  return flattenNestedStacks(parent, (id) => nested.get(id));
};

/**
 * Synthesizes the CDK app (no bundling) and returns everything it deploys as one template. The
 * cloud assembly (tens of MB: the console's and the functions' assets) is read and removed, not
 * left in the temporary folder at every start.
 */
export const synthesizeTemplate = (): CfnTemplate => {
  const outdir = mkdtempSync(path.join(tmpdir(), 'prognoz-synth-'));
  try {
    const { app, stack } = buildApp({ bundle: false, outdir });
    return wholeTemplate(app, stack);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
};

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

/** Resolves the few intrinsics a synthesized definition uses: Ref, Fn::GetAtt, Fn::Join. */
export const resolveIntrinsics = (value: unknown, bindings: LocalBindings): unknown => {
  if (Array.isArray(value)) return value.map((item) => resolveIntrinsics(item, bindings));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const [first] = entries;
  if (entries.length === 1 && first) {
    const [key, arg] = first;
    if (key === 'Ref' && typeof arg === 'string') return PSEUDO[arg] ?? bindings.ref(arg);
    if (key === 'Fn::GetAtt' && Array.isArray(arg)) return bindings.getAtt(String(arg[0]), String(arg[1]));
    if (key === 'Fn::Join' && Array.isArray(arg)) {
      const [separator, parts] = arg as unknown as [string, unknown[]];
      return parts.map((part) => String(resolveIntrinsics(part, bindings))).join(separator);
    }
    if (key.startsWith('Fn::')) throw new Error(`the local runtime cannot resolve ${key}`);
  }
  return Object.fromEntries(entries.map(([key, item]) => [key, resolveIntrinsics(item, bindings)]));
};

export { localFunctionArn, localStateMachineArn } from './paths.ts';
