/** How a secret input (`cog.Secret`) reads wherever it would be shown (as Replicate shows it). */
export const REDACTED = '**********';

/** The input as callers and webhooks see it: every secret field's value redacted. */
export const redactSecrets = (
  input: Readonly<Record<string, unknown>>,
  secrets: readonly string[],
): Record<string, unknown> => {
  if (secrets.length === 0) return { ...input };
  const shown: Record<string, unknown> = { ...input };
  for (const name of secrets) {
    const value = shown[name];
    if (value === undefined || value === null) continue;
    shown[name] = Array.isArray(value) ? value.map(() => REDACTED) : REDACTED;
  }
  return shown;
};

/** Replaces every secret input's value in text a caller will read (the model's logs, its errors). */
export const secretScrubber = (
  secrets: readonly string[],
  input: Readonly<Record<string, unknown>>,
): ((text: string) => string) => {
  const values = secrets
    .flatMap((name) => (Array.isArray(input[name]) ? (input[name] as unknown[]) : [input[name]]))
    .filter((value): value is string => typeof value === 'string' && value.length > 0)
    .sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  return (text) => values.reduce((scrubbed, value) => scrubbed.split(value).join(REDACTED), text);
};
