import { createHash } from 'node:crypto';

/** A create as the service understood it: what must match for a repeat to be the same request. */
export interface CreateFingerprintParts {
  readonly model: string;
  /** The input as sent, before the schema's defaults. */
  readonly input: Readonly<Record<string, unknown>>;
  readonly webhook: string | null;
  readonly webhookEvents: readonly string[] | null;
  readonly cancelAfterSeconds: number | null;
}

const withSortedKeys = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withSortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const object = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, withSortedKeys(object[key])]),
  );
};

/** JSON with every object's keys sorted, so that the same value gives the same text whatever order it came in. */
export const canonicalJson = (value: unknown): string => JSON.stringify(withSortedKeys(value));

/** sha256 (hex) of the create's canonical JSON. */
export const requestFingerprint = (parts: CreateFingerprintParts): string =>
  createHash('sha256')
    .update(
      canonicalJson({
        model: parts.model,
        input: parts.input,
        webhook: parts.webhook,
        // A set of events: the order they were listed in means nothing.
        webhook_events_filter: parts.webhookEvents === null ? null : [...parts.webhookEvents].sort(),
        cancel_after_seconds: parts.cancelAfterSeconds,
      }),
    )
    .digest('hex');
