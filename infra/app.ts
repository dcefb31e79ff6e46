import { App } from 'aws-cdk-lib';
import { PrognozStack } from './stack.ts';

export interface BuildOptions {
  /** Bundle the Lambda code (needed to deploy, not to read the template). Default: true. */
  readonly bundle?: boolean;
}

export const STACK_NAME = 'Prognoz';

/** Builds the CDK app; the local runtime and the tests synthesize it without bundling. */
export const buildApp = (options: BuildOptions = {}) => {
  const app = new App(options.bundle === false ? { context: { 'aws:cdk:bundling-stacks': [] } } : {});
  const stack = new PrognozStack(app, STACK_NAME, {
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
  return { app, stack };
};

if (import.meta.main) buildApp().app.synth();
