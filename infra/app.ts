import { App } from 'aws-cdk-lib';
import { processEnvironment } from '../shared/config/environment.ts';
import { loadModelCatalog } from '../shared/config/model-catalog.ts';
import { deploymentContextOf } from './context.ts';
import { addNagChecks } from './nag/checks.ts';
import { PrognozStack } from './stack.ts';
import { STACK_NAME } from '../shared/stack-name.ts';

export interface BuildOptions {
  /** Bundle the Lambda code (needed to deploy, not to read the template). Default: true. */
  readonly bundle?: boolean;
  /** CDK context, as `-c key=value` gives it (tests). */
  readonly context?: Readonly<Record<string, unknown>>;
  /** Where the cloud assembly is written; a new temporary folder by default (the CDK's own). */
  readonly outdir?: string;
  /**
   * The account and region to synthesize for. Default: what the CDK CLI gives the app
   * (CDK_DEFAULT_ACCOUNT, CDK_DEFAULT_REGION: the deployer's credentials), or none outside it.
   */
  readonly env?: { readonly account: string; readonly region: string };
}

export { STACK_NAME } from '../shared/stack-name.ts';

/** Builds the CDK app; the local runtime and the tests synthesize it without bundling. */
export const buildApp = (options: BuildOptions = {}) => {
  const app = new App({
    ...(options.outdir === undefined ? {} : { outdir: options.outdir }),
    context: { ...(options.bundle === false ? { 'aws:cdk:bundling-stacks': [] } : {}), ...options.context },
  });
  // The catalog the deployment serves: the manifest's, and a local run's `--model` folders, less those it withholds.
  const models = loadModelCatalog(processEnvironment()).offered;
  const context = deploymentContextOf(
    app.node,
    models.map((model) => model.id),
  );
  const stack = new PrognozStack(app, STACK_NAME, {
    models,
    env: options.env ?? { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    minWarmTasks: context.minWarmTasks,
    waf: context.waf,
    keepLegacyOwnerIndex: context.keepLegacyOwnerIndex,
    ...(context.alarmEmail === undefined ? {} : { alarmEmail: context.alarmEmail }),
    ...(context.consoleDomain === undefined || context.consoleCertificateArn === undefined
      ? {}
      : { consoleDomain: { domainName: context.consoleDomain, certificateArn: context.consoleCertificateArn } }),
  });
  return { app, stack };
};

// `cdk synth` and `cdk deploy` run cdk-nag's AwsSolutions checks (the test suite runs them too).
if (import.meta.main) {
  const { app } = buildApp();
  addNagChecks(app);
  app.synth();
}
