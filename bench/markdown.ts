/** The few Markdown shapes the bench's report is written in. */
import type { Summary } from './stats.ts';

/** Three significant digits, no exponent for the sizes that appear here. */
export const n = (value: number | null | undefined, digits = 3): string => {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (value === 0) return '0';
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  const decimals = Math.max(0, digits - 1 - magnitude);
  return value.toFixed(Math.min(decimals, 8));
};
export const p50p99 = (s: Summary) => `${n(s.p50)} / ${n(s.p99)}`;
export const table = (head: readonly string[], rows: readonly (readonly string[])[]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
