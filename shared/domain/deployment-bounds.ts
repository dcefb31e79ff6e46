import { PrognozError, type FieldIssue } from './errors.ts';
import { err, ok, type Result } from './result.ts';

/** The bounds a fleet's scaler keeps its instances within. */
export interface FleetBounds {
  readonly minInstances: number;
  readonly maxInstances: number;
}

/** What an operator asks of a deployment's configuration; what is left out stays as it is. */
export interface BoundsChange {
  readonly minInstances?: number;
  readonly maxInstances?: number;
}

const MIN = 'min_instances';
const MAX = 'max_instances';

/**
 * The bounds a change leaves a fleet with, or every field that makes it impossible: a negative or
 * fractional count, a minimum above the maximum, a maximum past the stack's cap for the model (its
 * Auto Scaling group and scaling steps reach no further; `maxTasksCap` in models/manifest.json).
 */
export const boundsAfter = (
  current: FleetBounds,
  change: BoundsChange,
  cap: number,
): Result<FleetBounds, readonly FieldIssue[]> => {
  const issues: FieldIssue[] = [];
  const count = (field: string, value: number | undefined) => {
    if (value === undefined) return;
    if (!Number.isSafeInteger(value) || value < 0) issues.push({ field, message: 'must be a whole number, 0 or more' });
  };
  count(MIN, change.minInstances);
  count(MAX, change.maxInstances);
  if (issues.length > 0) return err(issues);
  const after = {
    minInstances: change.minInstances ?? current.minInstances,
    maxInstances: change.maxInstances ?? current.maxInstances,
  };
  if (after.maxInstances > cap) {
    issues.push({
      field: MAX,
      message: `must be at most ${cap}, this stack's cap for the model (maxTasksCap in models/manifest.json; raising it takes a deploy)`,
    });
  }
  if (after.minInstances > after.maxInstances) {
    const field = change.minInstances !== undefined ? MIN : MAX;
    issues.push({
      field,
      message:
        field === MIN
          ? `must not exceed max_instances (${after.maxInstances})`
          : `must not be below min_instances (${after.minInstances})`,
    });
  }
  return issues.length > 0 ? err(issues) : ok(after);
};

export const sameBounds = (a: FleetBounds, b: FleetBounds): boolean =>
  a.minInstances === b.minInstances && a.maxInstances === b.maxInstances;

/** A change the fleet cannot take: the first issue in the message, every one in `fields`. */
export const configurationRefused = (issues: readonly FieldIssue[]): PrognozError => {
  const [first] = issues;
  return new PrognozError(
    'invalid_configuration',
    `${first?.field ?? 'the change'} ${first?.message ?? 'is not valid'}`,
    {
      fields: issues,
    },
  );
};
