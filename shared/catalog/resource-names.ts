import { createHash } from 'node:crypto';

/**
 * The longest name each AWS service takes for what prognoz names after a model, and the region
 * whose name is longest (the limits that count an ARN are met there, and so everywhere).
 */
export const NAME_LIMITS = {
  /** Step Functions: a state machine's name (its ARN is not counted). */
  stateMachine: 80,
  /** ECS: a cluster's name. */
  cluster: 255,
  /**
   * Systems Manager: a parameter's name, path included. AWS counts the whole ARN against 1,011
   * characters; this leaves room for the longest ARN head (`arn:aws-us-gov:ssm:<region>:<account>:parameter`).
   */
  parameter: 1011 - 'arn:aws-us-gov:ssm:ap-southeast-2:123456789012:parameter'.length,
  /**
   * A model's nested stack's construct id, without its `Model` suffix. CloudFormation names a
   * nested stack `<parent>-<logical id>-<13 characters>`, at most 128; the CDK's logical id of a
   * nested stack holds the construct id twice and 38 characters more, so 29 keeps the name within
   * 128 under the stack name `Prognoz`.
   */
  modelStackId: 29,
} as const;

/** The region with the longest name, in which every name and ARN is checked. */
export const LONGEST_REGION = 'ap-southeast-2';

/** Letters, digits and `-` only: what every service above accepts. */
const slugOf = (modelId: string): string => modelId.replace(/[^A-Za-z0-9-]/g, '-');

const HASH_LENGTH = 8;

/**
 * A name made of a prefix and a model id, within `maxLength`: the prefix and the id with every
 * character other than a letter, a digit or `-` made `-` (`openai/whisper-base` →
 * `Prognoz-openai-whisper-base`). A name that would be longer keeps as much of the id as fits, then
 * `-` and the first 8 hex digits of the id's SHA-256, so that two long ids that differ only past
 * the cut still get different names. The one rule for every name derived from a model id: the
 * stack names resources with it, and every function finds them with it.
 */
export const nameAfterModel = (prefix: string, modelId: string, maxLength: number): string => {
  const whole = `${prefix}${slugOf(modelId)}`;
  if (whole.length <= maxLength) return whole;
  const kept = maxLength - prefix.length - 1 - HASH_LENGTH;
  if (kept < 1) throw new Error(`the name prefix ${prefix} leaves no room for a model in ${maxLength} characters`);
  const hash = createHash('sha256').update(modelId).digest('hex').slice(0, HASH_LENGTH);
  return `${prefix}${slugOf(modelId).slice(0, kept)}-${hash}`;
};

/** A model's nested stack's construct id: `openai/whisper-base` → `OpenaiWhisperBaseModel`. */
export const modelStackIdOf = (modelId: string): string =>
  `${nameAfterModel('', modelId, NAME_LIMITS.modelStackId).replace(/(^|-)(\w)/g, (_, __, c: string) => c.toUpperCase())}Model`;

/**
 * The names of the models' workflows: one prefix for the deployment (its stack's name), then the
 * model. Functions find a model's state machine from the prefix's ARN alone, IAM grants on the
 * prefix, and neither grows with the number of models.
 */
export const WORKFLOW_NAMES = {
  prefixOf: (stackName: string): string => `${stackName}-`,
  nameOf: (prefix: string, model: { readonly id: string }): string =>
    nameAfterModel(prefix, model.id, NAME_LIMITS.stateMachine),
  /** A model's state machine's ARN, from the ARN of the workflows' names' prefix (`…:stateMachine:Prognoz-`). */
  arnOf: (arnPrefix: string, model: { readonly id: string }): string => {
    const head = arnPrefix.lastIndexOf(':') + 1;
    return `${arnPrefix.slice(0, head)}${WORKFLOW_NAMES.nameOf(arnPrefix.slice(head), model)}`;
  },
};

/** Every name a deployment derives from one model id, by what it names. */
export const modelNamesOf = (stackName: string, modelId: string) => ({
  workflow: WORKFLOW_NAMES.nameOf(WORKFLOW_NAMES.prefixOf(stackName), { id: modelId }),
  cluster: nameAfterModel(`${stackName}-`, modelId, NAME_LIMITS.cluster),
  fleetParameter: nameAfterModel(`/${stackName}/fleets/`, modelId, NAME_LIMITS.parameter),
  modelStack: modelStackIdOf(modelId),
});

/**
 * Checks, where a deployment starts (synthesis, `npm start`), that no two models of a catalog get
 * one name: ids that differ only in `.`, `_` or where the `/` falls (`a-b/c`, `a/b-c`, `a.b/c`)
 * read the same in AWS names. The error names both ids.
 */
export const checkModelNames = (stackName: string, modelIds: readonly string[]): void => {
  const seen = new Map<string, string>();
  for (const id of modelIds) {
    for (const [what, name] of Object.entries(modelNamesOf(stackName, id))) {
      const key = `${what}:${name}`;
      const other = seen.get(key);
      if (other !== undefined && other !== id)
        throw new Error(
          `the models ${other} and ${id} would share the ${what} name ${name}: rename one (ids that differ only in ".", "_" or where the "/" falls read the same in AWS names)`,
        );
      seen.set(key, id);
    }
  }
};
