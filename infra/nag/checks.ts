import {
  CfnResource,
  Validations,
  type App,
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
  type PolicyViolation,
} from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { NAG_SUPPRESSIONS } from './suppressions.ts';
import type { NagSuppression } from './where.ts';

/** One resource that breaks one rule of cdk-nag's AwsSolutions pack (or one item of it: IAM4 and IAM5 name theirs). */
export interface NagFinding {
  /** The rule, e.g. AwsSolutions-IAM5. */
  readonly rule: string;
  /** The item in brackets, e.g. `Resource::*`, for the rules that report one finding per item. */
  readonly item?: string;
  readonly severity: string;
  readonly description: string;
  readonly resource: CfnResource;
}

export interface NagTriage {
  /** Findings no suppression accepts: each one fails the synthesis (errors) or is reported (warnings). */
  readonly unsuppressed: readonly NagFinding[];
  readonly suppressed: readonly { readonly finding: NagFinding; readonly by: NagSuppression }[];
  /** Suppressions that accept no finding: the thing they excused is gone, or they no longer point at it. */
  readonly unused: readonly NagSuppression[];
}

const RULE_AND_ITEM = /^([^[]+)(?:\[(.*)\])?$/s;

/**
 * The AwsSolutions findings of every resource under `scope`, nested stacks included, as they are
 * once the app is synthesized: only then do references between stacks read as they deploy (a
 * nested stack's grant on the table names a parameter, not the table).
 */
export const nagFindings = (scope: IConstruct): NagFinding[] => {
  const resources = new Map(
    scope.node
      .findAll()
      .filter((node): node is CfnResource => CfnResource.isCfnResource(node))
      .map((resource) => [resource.node.path, resource]),
  );
  const report = new AwsSolutionsChecks().validateScope(scope);
  return report.violations.flatMap((violation) => {
    const [, rule = violation.ruleName, item] = RULE_AND_ITEM.exec(violation.ruleName) ?? [];
    return violation.violatingResources.map((violating) => {
      const resource = resources.get(violating.constructPath ?? '');
      if (!resource)
        throw new Error(`cdk-nag reported ${violation.ruleName} on ${violating.constructPath}, not a resource`);
      return {
        rule,
        ...(item === undefined ? {} : { item }),
        severity: violation.severity ?? 'error',
        description: violation.description,
        resource,
      };
    });
  });
};

export const accepts = (suppression: NagSuppression, finding: NagFinding): boolean =>
  suppression.rule === finding.rule &&
  (suppression.items === undefined
    ? finding.item === undefined
    : finding.item !== undefined && suppression.items.test(finding.item)) &&
  suppression.where.matches(finding.resource);

export const triage = (findings: readonly NagFinding[], suppressions: readonly NagSuppression[]): NagTriage => {
  const used = new Set<NagSuppression>();
  const unsuppressed: NagFinding[] = [];
  const suppressed: { finding: NagFinding; by: NagSuppression }[] = [];
  for (const finding of findings) {
    const accepting = suppressions.filter((suppression) => accepts(suppression, finding));
    for (const suppression of accepting) used.add(suppression);
    const [by] = accepting;
    if (by) suppressed.push({ finding, by });
    else unsuppressed.push(finding);
  }
  return { unsuppressed, suppressed, unused: suppressions.filter((suppression) => !used.has(suppression)) };
};

export const describeFinding = (finding: NagFinding): string =>
  `${finding.severity} ${finding.rule}${finding.item === undefined ? '' : `[${finding.item}]`} at ${finding.resource.node.path}: ${finding.description}`;

export const describeSuppression = (suppression: NagSuppression): string =>
  `${suppression.rule}${suppression.items ? ` ${String(suppression.items)}` : ''} on ${suppression.where.description}`;

/**
 * cdk-nag's AwsSolutions pack with the project's suppressions (./suppressions.ts), as a policy
 * validation plugin: `cdk synth` fails on every error no suppression accepts, and lists the
 * warnings. Suppressions are matched here rather than acknowledged on constructs
 * (Validations.acknowledge), because an acknowledgement names a finding exactly, and a grant's
 * finding names the logical ids of what it grants on, which change when a construct moves into a
 * nested stack — and are not even known until the app is synthesized.
 */
export class PrognozNagChecks implements IPolicyValidationPlugin {
  public readonly name = 'prognoz-cdk-nag';

  constructor(private readonly suppressions: readonly NagSuppression[] = NAG_SUPPRESSIONS) {}

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const { unsuppressed } = triage(nagFindings(context.appConstruct), this.suppressions);
    const violations = new Map<string, PolicyViolation>();
    for (const finding of unsuppressed) {
      const ruleName = `${finding.rule}${finding.item === undefined ? '' : `[${finding.item}]`}`;
      const violation = violations.get(ruleName) ?? {
        ruleName,
        description: finding.description,
        severity: finding.severity,
        violatingResources: [],
      };
      violations.set(ruleName, {
        ...violation,
        violatingResources: [
          ...violation.violatingResources,
          { constructPath: finding.resource.node.path, locations: ['Properties'] },
        ],
      });
    }
    return {
      success: !unsuppressed.some((finding) => finding.severity === 'error'),
      violations: [...violations.values()],
    };
  }
}

/** Checks the app on every synthesis (`cdk synth`, `cdk deploy`, and a test's `app.synth()`). */
export const addNagChecks = (app: App, suppressions: readonly NagSuppression[] = NAG_SUPPRESSIONS): void => {
  Validations.of(app).addPlugins(new PrognozNagChecks(suppressions));
};
