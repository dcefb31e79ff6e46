import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTEXT_KEYS } from '../../infra/context.ts';
import { LEGACY_OWNER_INDEX_NAME } from '../../shared/adapters/table-keys.ts';
import { LONGEST_REGION } from '../../shared/catalog/resource-names.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const ACCOUNT = '123456789012';

/**
 * A deployer's shell without AWS credentials: whatever this machine has (a developer's profile, an
 * instance role) is out of reach, so a command that would deploy stops where it first needs AWS.
 * The CDK CLI then gives the app the account and region set here, as it gives a deployer's own.
 */
const deployerEnv = (region: string): NodeJS.ProcessEnv => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_') && !name.startsWith('CDK_')),
  );
  return {
    ...env,
    AWS_REGION: region,
    CDK_DEFAULT_ACCOUNT: ACCOUNT,
    AWS_CONFIG_FILE: '/nonexistent/aws-config',
    AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/aws-credentials',
    AWS_EC2_METADATA_DISABLED: 'true',
  };
};

interface Outcome {
  readonly code: number;
  readonly output: string;
}

/** A command as a deployer types it, in bash, with nothing on its standard input. */
const shell = (command: string, region: string): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], {
      cwd: ROOT,
      env: deployerEnv(region),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });

interface Manifest {
  readonly artifacts: Record<string, { readonly metadata?: Record<string, { type: string; data: unknown }[]> }>;
}

/** What the synthesis annotated as an error or a warning, by construct path: what `cdk synth` prints. */
const annotations = (outdir: string): string[] => {
  const manifest = JSON.parse(readFileSync(path.join(outdir, 'manifest.json'), 'utf8')) as Manifest;
  return Object.values(manifest.artifacts).flatMap((artifact) =>
    Object.entries(artifact.metadata ?? {}).flatMap(([where, entries]) =>
      entries
        .filter((entry) => entry.type === 'aws:cdk:error' || entry.type === 'aws:cdk:warning')
        .map((entry) => `${entry.type} ${where}: ${String(entry.data)}`),
    ),
  );
};

const templatesIn = (outdir: string): string[] =>
  readdirSync(outdir)
    .filter((name) => name.endsWith('.template.json'))
    .map((name) => path.join(outdir, name));

type Template = { Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
const resourcesIn = (outdir: string, type: string) =>
  templatesIn(outdir).flatMap((file) =>
    Object.values((JSON.parse(readFileSync(file, 'utf8')) as Template).Resources).filter(
      (resource) => resource.Type === type,
    ),
  );

/** cfn-lint's errors in every template of a cloud assembly, checked for the region it was made for. */
const cfnLintErrors = async (outdir: string, region: string): Promise<string[]> => {
  const files = templatesIn(outdir);
  expect(files.length).toBeGreaterThan(1);
  const { output } = await shell(
    [path.join(ROOT, '.venv', 'bin', 'cfn-lint'), '--format', 'parseable', ...files, '--regions', region].join(' '),
    region,
  );
  // Exit code bits: 2 errors, 4 warnings, 8 informational. Only errors count.
  return output.split('\n').filter((line) => /:E\d{4}:/.test(line));
};

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});
const outdirFor = (name: string) => {
  const dir = mkdtempSync(path.join(tmpdir(), `prognoz-cdk-${name}-`));
  scratch.push(dir);
  return dir;
};

const MINUTES = 60_000;
/** No function is near Lambda's limit (250 MB unzipped); more than this would be a package bundled by mistake. */
const MAX_BUNDLE_BYTES = 1024 * 1024;

describe('the deployer’s path, as the README gives it and as far as it runs without AWS', () => {
  const section = /## Deploying to AWS\n+```sh\n([\s\S]*?)```/.exec(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  const commands = (section?.[1] ?? '')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
  const outdir = path.join(ROOT, 'cdk.out');

  it('is three commands: synthesize, bootstrap, deploy', () => {
    expect(commands).toEqual(['npm run synth', 'npx cdk bootstrap', 'npm run deploy']);
  });

  it(
    'runs them in order: the synthesis is clean, bootstrap and deploy stop only for want of credentials',
    async () => {
      rmSync(outdir, { recursive: true, force: true });
      const [synth, bootstrap, deploy] = commands;
      if (synth === undefined || bootstrap === undefined || deploy === undefined) throw new Error('no commands');
      const synthesized = await shell(synth, 'us-east-1');
      expect(synthesized.code, synthesized.output).toBe(0);
      expect(annotations(outdir)).toEqual([]);
      for (const command of [bootstrap, deploy]) {
        const stopped = await shell(command, 'us-east-1');
        expect(stopped.code, `${command}: ${stopped.output}`).not.toBe(0);
        expect(stopped.output, command).toMatch(`Need to perform AWS calls for account ${ACCOUNT}`);
        expect(stopped.output, command).not.toMatch(/Validation failed|AwsSolutions-/);
      }
    },
    5 * MINUTES,
  );

  it('builds every function as `cdk deploy` does: one bundle each, well within Lambda’s limits', () => {
    const functions = resourcesIn(outdir, 'AWS::Lambda::Function');
    const bundles = readdirSync(outdir)
      .map((name) => path.join(outdir, name, 'index.mjs'))
      .filter((file) => existsSync(file));
    expect(bundles.length).toBeGreaterThanOrEqual(20);
    expect(bundles.length).toBeLessThanOrEqual(functions.length);
    for (const bundle of bundles) expect(statSync(bundle).size, bundle).toBeLessThan(MAX_BUNDLE_BYTES);
  });

  it(
    'writes templates cfn-lint finds no error in, the stack’s and every model’s',
    async () => {
      expect(await cfnLintErrors(outdir, 'us-east-1')).toEqual([]);
    },
    3 * MINUTES,
  );
});

describe('`npx cdk synth` with a concrete account, as the CDK CLI gives a deployer’s', () => {
  it(
    'is clean in eu-central-1',
    async () => {
      const outdir = outdirFor('eu-central-1');
      const synthesized = await shell(`npx cdk synth --quiet --no-notices -o ${outdir}`, 'eu-central-1');
      expect(synthesized.code, synthesized.output).toBe(0);
      expect(annotations(outdir)).toEqual([]);
    },
    3 * MINUTES,
  );

  describe(`with every documented setting, in ${LONGEST_REGION} (the longest region's name)`, () => {
    const outdir = outdirFor(LONGEST_REGION);
    const domain = 'console.example.com';
    const settings = {
      [CONTEXT_KEYS.waf]: 'true',
      [CONTEXT_KEYS.alarmEmail]: 'oncall@example.com',
      [CONTEXT_KEYS.consoleDomain]: domain,
      [CONTEXT_KEYS.consoleCertificateArn]: `arn:aws:acm:us-east-1:${ACCOUNT}:certificate/0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d`,
      [CONTEXT_KEYS.minWarmTasks]: '{"openai/whisper-base":1}',
      [CONTEXT_KEYS.keepLegacyOwnerIndex]: 'true',
    };
    const flags = Object.entries(settings)
      .map(([key, value]) => `-c '${key}=${value}'`)
      .join(' ');

    it(
      'is clean, and each setting takes effect',
      async () => {
        const synthesized = await shell(`npx cdk synth --quiet --no-notices ${flags} -o ${outdir}`, LONGEST_REGION);
        expect(synthesized.code, synthesized.output).toBe(0);
        expect(annotations(outdir)).toEqual([]);

        expect(resourcesIn(outdir, 'AWS::WAFv2::WebACL')).toHaveLength(1);
        expect(resourcesIn(outdir, 'AWS::SNS::Subscription').map((resource) => resource.Properties)).toEqual([
          expect.objectContaining({ Protocol: 'email', Endpoint: settings[CONTEXT_KEYS.alarmEmail] }),
        ]);
        const [distribution] = resourcesIn(outdir, 'AWS::CloudFront::Distribution');
        expect(distribution?.Properties?.DistributionConfig).toMatchObject({
          Aliases: [domain],
          ViewerCertificate: { MinimumProtocolVersion: 'TLSv1.2_2021' },
        });
        const minimums = resourcesIn(outdir, 'AWS::ApplicationAutoScaling::ScalableTarget').map(
          (resource) => resource.Properties?.MinCapacity,
        );
        expect(minimums.filter((min) => min === 1)).toHaveLength(1);
        const [table] = resourcesIn(outdir, 'AWS::DynamoDB::GlobalTable');
        expect(JSON.stringify(table?.Properties?.GlobalSecondaryIndexes)).toContain(`"${LEGACY_OWNER_INDEX_NAME}"`);
      },
      3 * MINUTES,
    );

    it(
      'writes templates cfn-lint finds no error in for that region',
      async () => {
        expect(await cfnLintErrors(outdir, LONGEST_REGION)).toEqual([]);
      },
      3 * MINUTES,
    );
  });
});
