import type { ScenarioCost } from './cost.ts';
import { n, table } from './markdown.ts';

/**
 * Where each scenario's DynamoDB units go: per prediction, each call by operation and the kinds
 * of item it touches, as `calls · RRU / WRU`. The rows the write units come from are what a
 * cheaper design has to shrink.
 */
export const dynamoUnitsByCall = (scenarios: readonly ScenarioCost[]): string[] => {
  const measured = scenarios;
  const calls = [...new Set(measured.flatMap((sc) => Object.keys(sc.perPrediction.dynamoByItem)))].sort();
  const writeUnits = (call: string) =>
    Math.max(...measured.map((sc) => sc.perPrediction.dynamoByItem[call]?.writeUnits ?? 0));
  calls.sort((a, b) => writeUnits(b) - writeUnits(a) || a.localeCompare(b));
  return [
    '### DynamoDB units by call, per prediction',
    '',
    'Each call by operation and the kinds of item it touches (the sort key’s kind: `SPEND` is an account’s month, `RATE` a rate window); a cell is `calls · RRU / WRU`. A write costs one unit per KB of the item it leaves (the larger of before and after), two in a transaction, and one per KB of what it projects into each index it writes (the owner index holds the keys and the model, the sweeper’s only keys).',
    '',
    table(
      ['call', ...measured.map((sc) => sc.scenario)],
      calls.map((call) => [
        `\`${call}\``,
        ...measured.map((sc) => {
          const usage = sc.perPrediction.dynamoByItem[call];
          return usage ? `${n(usage.calls)} · ${n(usage.readUnits)} / ${n(usage.writeUnits)}` : '—';
        }),
      ]),
    ),
  ];
};
