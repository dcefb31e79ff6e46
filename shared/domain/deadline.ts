import { PrognozError } from './errors.ts';

/** The shortest `Cancel-After` (interface: Deadlines): a deadline closer than this could not let a model start. */
export const MIN_CANCEL_AFTER_SECONDS = 5;
/** The longest: a week, past every model's queue and run limits. */
export const MAX_CANCEL_AFTER_SECONDS = 7 * 24 * 3600;

const UNIT_SECONDS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1 };

/** `Cancel-After`'s form (lower case; the empty value aside): whole seconds, or hours, minutes and seconds. */
export const CANCEL_AFTER_FORMAT = /^(\d+|(\d+h)?(\d+m)?(\d+(\.\d+)?s)?)$/;

/**
 * `Cancel-After: 30s | 5m | 1h30m | 90` (whole seconds when no unit) → seconds from creation,
 * as Replicate reads it; at least MIN_CANCEL_AFTER_SECONDS.
 */
export const parseCancelAfter = (raw: string): number => {
  const value = raw.trim().toLowerCase();
  const invalid = () =>
    new PrognozError(
      'invalid_header',
      `Cancel-After must be a duration such as 30s, 5m or 1h30m, or whole seconds, from ${MIN_CANCEL_AFTER_SECONDS} s to ${MAX_CANCEL_AFTER_SECONDS / 86_400} days`,
    );
  if (value === '' || !CANCEL_AFTER_FORMAT.test(value)) throw invalid();
  let seconds: number;
  if (/^\d+$/.test(value)) seconds = Number(value);
  else {
    seconds = 0;
    for (const [, amount, unit] of value.matchAll(/(\d+(?:\.\d+)?)([hms])/g))
      seconds += Number(amount) * (UNIT_SECONDS[unit ?? 's'] ?? 1);
  }
  if (!(seconds >= MIN_CANCEL_AFTER_SECONDS && seconds <= MAX_CANCEL_AFTER_SECONDS)) throw invalid();
  return seconds;
};
