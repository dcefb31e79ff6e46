import { timingSafeEqual } from 'node:crypto';

/**
 * Whether a secret the caller gave equals the expected one, in time that does not tell how much
 * of it matched. Compares UTF-8 bytes: strings of one length may differ in bytes.
 */
export const sameSecret = (given: string, expected: string): boolean => {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
};
