import type { Node } from 'constructs';
import * as z from 'zod';

/** The CDK context keys a deployer sets (`cdk deploy -c key=value`, or cdk.json's "context"). */
export const CONTEXT_KEYS = {
  minWarmTasks: 'prognoz:minWarmTasks',
  alarmEmail: 'prognoz:alarmEmail',
  waf: 'prognoz:waf',
  consoleDomain: 'prognoz:consoleDomain',
  consoleCertificateArn: 'prognoz:consoleCertificateArn',
  keepLegacyOwnerIndex: 'prognoz:keepLegacyOwnerIndex',
} as const;

/** From the command line every value is a string; from cdk.json it may be JSON already. */
const jsonOrValue = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
};

const deploymentContext = z
  .object({
    minWarmTasks: z.preprocess(jsonOrValue, z.record(z.string(), z.number().int().min(0)).default({})),
    alarmEmail: z.email().optional(),
    waf: z.preprocess(jsonOrValue, z.boolean().default(false)),
    keepLegacyOwnerIndex: z.preprocess(jsonOrValue, z.boolean().default(false)),
    consoleDomain: z.string().min(1).optional(),
    consoleCertificateArn: z
      .string()
      .regex(/^arn:aws[\w-]*:acm:us-east-1:\d{12}:certificate\/[\w-]+$/, 'must be an ACM certificate ARN in us-east-1')
      .optional(),
  })
  .refine((context) => (context.consoleDomain === undefined) === (context.consoleCertificateArn === undefined), {
    message: `${CONTEXT_KEYS.consoleDomain} and ${CONTEXT_KEYS.consoleCertificateArn} go together`,
  });

export type DeploymentContext = z.infer<typeof deploymentContext>;

/**
 * The deployment's settings from CDK context, checked before anything is built: a wrong value is
 * an error naming its key, never a stack that deploys something else.
 */
export const deploymentContextOf = (
  node: Pick<Node, 'tryGetContext'>,
  knownModels: readonly string[],
): DeploymentContext => {
  const raw = Object.fromEntries(Object.entries(CONTEXT_KEYS).map(([name, key]) => [name, node.tryGetContext(key)]));
  const parsed = deploymentContext.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path[0];
      const key =
        typeof name === 'string' && name in CONTEXT_KEYS ? CONTEXT_KEYS[name as keyof typeof CONTEXT_KEYS] : 'context';
      return `${key}: ${issue.message}`;
    });
    throw new Error(`invalid CDK context: ${problems.join('; ')}`);
  }
  const unknown = Object.keys(parsed.data.minWarmTasks).filter((id) => !knownModels.includes(id));
  if (unknown.length > 0)
    throw new Error(`invalid CDK context: ${CONTEXT_KEYS.minWarmTasks}: no model ${unknown.join(', ')} in the catalog`);
  return parsed.data;
};
