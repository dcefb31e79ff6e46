import { Stack, type CfnResource } from 'aws-cdk-lib';
import { Method } from 'aws-cdk-lib/aws-apigateway';
import { CfnPolicy } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/** The resources a suppression applies to: what a reviewer reads, and the test of it. */
export interface Where {
  readonly description: string;
  matches(resource: CfnResource): boolean;
}

/**
 * A finding of cdk-nag's AwsSolutions pack the project accepts, where it accepts it, and why:
 * what the finding means here, and why it stays or what would fix it at what cost.
 */
export interface NagSuppression {
  /** The rule, e.g. AwsSolutions-S1 (the ids: cdk-nag's RULES.md). */
  readonly rule: `AwsSolutions-${string}`;
  /**
   * For the rules that report one finding per item (IAM4: each managed policy; IAM5: each
   * wildcard action or resource), the items accepted; any other item of the same rule still fails.
   */
  readonly items?: RegExp;
  readonly where: Where;
  readonly reason: string;
  /** Set where the finding should be fixed rather than accepted: how (the suppression goes with the fix). */
  readonly fix?: string;
}

/**
 * An IAM5 or IAM4 item as cdk-nag writes it, from a pattern where `{region}` and `{account}` stand
 * for a stack's region and account: tokens (`<AWS::Region>`) when the app is synthesized without
 * an environment (the tests' buildApp), literals when the CDK CLI gives it a concrete one (every
 * `cdk synth` and `cdk deploy`). Nothing else of the pattern widens.
 */
export const nagItem = (pattern: string): RegExp =>
  new RegExp(
    pattern
      .replaceAll('{region}', String.raw`(?:<AWS::Region>|[a-z]{2}(?:-[a-z]+)+-\d)`)
      .replaceAll('{account}', String.raw`(?:<AWS::AccountId>|\d{12})`),
  );

type ConstructClass = abstract new (...args: never[]) => IConstruct;

const ancestors = (node: IConstruct): IConstruct[] => {
  const found: IConstruct[] = [];
  for (let scope = node.node.scope; scope; scope = scope.node.scope) found.push(scope);
  return found;
};

const nearest = (node: IConstruct, owner: ConstructClass): IConstruct | undefined =>
  ancestors(node).find((scope) => scope instanceof owner);

const relativePath = (node: IConstruct, ancestor: IConstruct): string =>
  node.node.path.slice(ancestor.node.path.length + 1);

/**
 * Resources of a construct of ours, at these paths inside it (all of them if none is given). Keyed
 * by the construct's class, not its path in the app, so it keeps matching wherever the construct
 * goes (into a nested stack, under another parent).
 */
export const inside = (owner: ConstructClass, ...paths: string[]): Where => ({
  description: `${owner.name}${paths.length > 0 ? ` (${paths.join(', ')})` : ''}`,
  matches: (resource) => {
    const found = nearest(resource, owner);
    return found !== undefined && (paths.length === 0 || paths.includes(relativePath(resource, found)));
  },
});

/** Resources at these paths inside a construct whose id matches: for the CDK's own singletons (no class of theirs is exported). */
export const insideConstructNamed = (id: RegExp, ...paths: string[]): Where => ({
  description: `${String(id)} (${paths.join(', ')})`,
  matches: (resource) => {
    const named = ancestors(resource).find((scope) => id.test(scope.node.id));
    return named !== undefined && paths.includes(relativePath(resource, named));
  },
});

/** Resources of a type (an L1 class), any that passes `test`. */
export const ofType = <T extends CfnResource>(
  type: abstract new (...args: never[]) => T,
  description: string,
  test: (resource: T) => boolean = () => true,
): Where => ({
  description,
  matches: (resource) => resource instanceof type && test(resource),
});

/** API Gateway methods that pass `test` (their path, their HTTP method). */
export const apiMethods = (description: string, test: (method: Method) => boolean): Where => ({
  description,
  matches: (resource) => {
    const method = resource.node.scope;
    return method instanceof Method && test(method);
  },
});

/** Every one of the conditions. */
export const allOf = (...wheres: Where[]): Where => ({
  description: wheres.map((where) => where.description).join(', and '),
  matches: (resource) => wheres.every((where) => where.matches(resource)),
});

/** Any of the places. */
export const anyOf = (...wheres: Where[]): Where => ({
  description: wheres.map((where) => where.description).join('; or '),
  matches: (resource) => wheres.some((where) => where.matches(resource)),
});

interface Statement {
  readonly Action?: string | readonly string[];
  readonly Resource?: unknown;
}

/**
 * An IAM policy whose statements on every resource (`*`) allow only these actions: an IAM5
 * `Resource::*` accepted for actions that AWS does not let a policy scope to a resource stops
 * matching the day another action joins them.
 */
export const wildcardResourceOnlyFor = (actions: readonly string[]): Where => ({
  description: `policies whose statements on resource * allow only ${actions.join(', ')}`,
  matches: (resource) => {
    if (!(resource instanceof CfnPolicy)) return false;
    const document = Stack.of(resource).resolve(resource.policyDocument) as { Statement?: Statement[] };
    return (document.Statement ?? [])
      .filter((statement) => [statement.Resource].flat().includes('*'))
      .every((statement) => [statement.Action ?? []].flat().every((action) => actions.includes(action)));
  },
});
