import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { NestedStack, type App, type Stack } from 'aws-cdk-lib';
import { buildApp } from '../infra/app.ts';
import type { CfnTemplate } from './cfn-template.ts';
import { flattenNestedStacks, type NestedTemplate } from './nested-stacks.ts';

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
