import { buildApp } from '../../infra/app.ts';
import { wholeTemplate } from '../../local/synthesize.ts';
import {
  metadataOf,
  resolveIntrinsics,
  resourcesOfType,
  type CfnResource,
  type CfnTemplate,
  type LocalBindings,
} from '../../local/template.ts';
import { LONGEST_REGION } from '../../shared/catalog/resource-names.ts';

/** A deployer's account, in the region whose name is longest: ARNs as long as they get. */
export const DEPLOYED_ENV = { account: '123456789012', region: LONGEST_REGION } as const;

const PSEUDO = {
  'AWS::Partition': 'aws',
  'AWS::Region': DEPLOYED_ENV.region,
  'AWS::AccountId': DEPLOYED_ENV.account,
  'AWS::URLSuffix': 'amazonaws.com',
};

/**
 * Everything the stack deploys in DEPLOYED_ENV, its models' nested stacks included, synthesized as
 * the CDK CLI would for a deployer (a concrete account and region), without bundling.
 */
export const deployedTemplate = (): CfnTemplate => {
  const { app, stack } = buildApp({ bundle: false, env: DEPLOYED_ENV });
  return wholeTemplate(app, stack);
};

/** What CloudFormation would name each resource, in the shape AWS gives: a queue's URL, a pool's id. */
const deployedNames = (template: CfnTemplate): LocalBindings => ({
  ref: (id) => {
    const resource = template.Resources[id];
    if (resource === undefined) throw new Error(`${id} is not in the template`);
    const named = resource.Properties?.StateMachineName ?? resource.Properties?.ClusterName;
    if (typeof named === 'string') return named;
    if (resource.Type === 'AWS::SQS::Queue')
      return `https://sqs.${DEPLOYED_ENV.region}.amazonaws.com/${DEPLOYED_ENV.account}/${id}`;
    if (resource.Type === 'AWS::S3::Bucket') return id.toLowerCase();
    if (resource.Type === 'AWS::Cognito::UserPool') return `${DEPLOYED_ENV.region}_${id.slice(0, 9)}`;
    return id;
  },
  getAtt: (id, attribute) => `arn:aws:${id}:${attribute}`,
});

/** Values of the template, their intrinsics resolved as CloudFormation would in DEPLOYED_ENV. */
export const resolvedIn = (
  template: CfnTemplate,
  variables: Readonly<Record<string, unknown>>,
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(variables).map(([name, value]) => [
      name,
      String(resolveIntrinsics(value, deployedNames(template), PSEUDO)),
    ]),
  );

/** The stack's functions of prognoz's own code (those with an entry), by logical id. */
export const functionsOf = (template: CfnTemplate): [string, CfnResource][] =>
  resourcesOfType(template, 'AWS::Lambda::Function').filter(
    ([, resource]) => metadataOf(resource, 'entry') !== undefined,
  );

/** A function's environment as deployed. */
export const variablesOfFunction = (template: CfnTemplate, resource: CfnResource): Record<string, string> =>
  resolvedIn(
    template,
    (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
  );
