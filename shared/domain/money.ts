import { roublesToMicro } from './pricing.ts';

/** Parses a rouble amount given by a person (`100`, `0.30`) into whole kopecks, exactly. */
export const parseRoubles = (text: string): number => {
  const micro = roublesToMicro(text.trim());
  if (micro % 10_000n !== 0n) throw new Error(`${text} is not a whole number of kopecks`);
  return Number(micro / 10_000n);
};

/** Kopecks as a rouble string with two decimals (`1234` → `12.34`). */
export const formatRoubles = (kopecks: number): string => {
  const sign = kopecks < 0 ? '-' : '';
  const abs = Math.abs(kopecks);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
};

/** The calendar month (UTC) that monthly limits and spend are counted in: `2026-11`. */
export const monthOf = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 7);
