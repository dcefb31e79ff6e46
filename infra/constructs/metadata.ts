/**
 * Template metadata keys through which the local runtime finds, in the synthesized template,
 * which state machine, queue and task belong to which model, which source file each function runs,
 * which kind of process it is (its configuration's schema, shared/config/kinds.ts), and which of a
 * function's environment variables (comma-separated) are for AWS only.
 */
export const METADATA = {
  model: 'prognoz:model',
  role: 'prognoz:role',
  entry: 'prognoz:entry',
  config: 'prognoz:config',
  awsOnlyEnv: 'prognoz:aws-only-env',
} as const;

/** What `tag` writes on: a CDK `CfnResource` (named by its shape, so the local runtime reads these keys without the CDK). */
interface Taggable {
  addMetadata(key: string, value: unknown): void;
}

export const tag = (resource: Taggable, values: Partial<Record<keyof typeof METADATA, string>>): void => {
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined) resource.addMetadata(METADATA[key as keyof typeof METADATA], value);
  }
};
