import { Duration } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, type CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import path from 'node:path';
import { tag } from './metadata.ts';
import packageJson from '../../package.json' with { type: 'json' };

export const REPO_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** The SDK packages every function loads at its start (shared/adapters/aws-clients.ts), bundled. */
const EAGER_SDK_PACKAGES = new Set([
  '@aws-sdk/client-dynamodb',
  '@aws-sdk/lib-dynamodb',
  '@aws-sdk/credential-provider-env',
]);

/** The SDK packages the functions load at their first use, never at their start: the runtime's own. */
const LAZY_SDK_PACKAGES = Object.keys(packageJson.dependencies).filter(
  (name) => name.startsWith('@aws-sdk/') && !EAGER_SDK_PACKAGES.has(name),
);
/** How every Lambda is bundled; bench/bundles.ts bundles with the same settings. */
export const LAMBDA_BUNDLING = {
  target: 'node24',
  minify: true,
  // Stack traces need the mappings, not our sources: without them the map is a third of the size.
  sourcesContent: false,
  // Every bundle starts by mapping error stacks to the sources at their first writing
  // (functions/mapped-stack-traces.ts), in place of NODE_OPTIONS=--enable-source-maps, which
  // parses the whole map at every cold start.
  inject: ['./functions/mapped-stack-traces.ts'],
  // The DynamoDB client, which every function makes at its start, is bundled (tree-shaken from its
  // ES modules) with the default credential chain replaced by the environment's credentials
  // (shared/adapters/lambda-credentials.ts): that cuts the SDK's floor under every cold start by
  // about two fifths (bench §4). The other clients, loaded at their first use (lazy-sdk.ts), are the
  // runtime's own (AWS SDK v3 ships with it): bundled, they would only lengthen every function's
  // parse.
  externalModules: LAZY_SDK_PACKAGES,
  mainFields: ['module', 'main'],
  // Node's web streams, which middy's streaming mode imports at its start and prognoz's answers
  // never are, load at their first use (functions/http/lazy-web-streams.ts).
  alias: {
    '@aws-sdk/credential-provider-node': './shared/adapters/lambda-credentials.ts',
    'node:stream/web': './functions/http/lazy-web-streams.ts',
  },
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
} as const;

/**
 * What every function's environment starts with; the rest is its kind of process's, set with its
 * grants by process-bindings.ts.
 */
export const FUNCTION_BASE_ENVIRONMENT: Readonly<Record<string, string>> = {
  POWERTOOLS_SERVICE_NAME: 'prognoz',
};

export interface PrognozFunctionProps {
  /** Source file, relative to the repository root, exporting `handler`. */
  readonly entry: string;
  /** Default: 10 s. */
  readonly timeout?: Duration;
  /** Default: 512 MiB. */
  readonly memorySize?: number;
}

/**
 * Every Lambda of prognoz: Node 24 on arm64, one minified ESM bundle, logs kept a month. Its role
 * may write to its own log group only (AWSLambdaBasicExecutionRole would let it write to any).
 */
export class PrognozFunction extends Construct {
  public readonly fn: NodejsFunction;

  constructor(scope: Construct, id: string, props: PrognozFunctionProps) {
    super(scope, id);
    if (path.isAbsolute(props.entry)) throw new Error('entry must be relative to the repository root');
    const logGroup = new LogGroup(this, 'Logs', { retention: RetentionDays.ONE_MONTH });
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);
    this.fn = new NodejsFunction(this, 'Function', {
      entry: path.join(REPO_ROOT, props.entry),
      handler: 'handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      logGroup,
      role,
      environment: { ...FUNCTION_BASE_ENVIRONMENT },
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      bundling: {
        format: OutputFormat.ESM,
        sourceMap: true,
        sourcesContent: LAMBDA_BUNDLING.sourcesContent,
        minify: LAMBDA_BUNDLING.minify,
        target: LAMBDA_BUNDLING.target,
        externalModules: [...LAMBDA_BUNDLING.externalModules],
        mainFields: [...LAMBDA_BUNDLING.mainFields],
        esbuildArgs: Object.fromEntries(
          Object.entries(LAMBDA_BUNDLING.alias).map(([name, replacement]) => [`--alias:${name}`, replacement]),
        ),
        banner: LAMBDA_BUNDLING.banner,
        inject: [...LAMBDA_BUNDLING.inject],
      },
    });
    tag(this.fn.node.defaultChild as CfnFunction, { entry: props.entry });
  }
}
