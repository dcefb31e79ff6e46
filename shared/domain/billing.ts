import { monthOf } from './money.ts';
import type { Hold } from './prediction.ts';
import { costInKopecks, roublesToMicro } from './pricing.ts';

/** What a model charges and reserves: its price (roubles per second, as text) and the seconds a new prediction holds. */
export interface HoldTerms {
  readonly pricePerSecond: string;
  readonly holdSeconds: number;
}

/** What a new prediction of this model reserves, and in which month. */
export const holdFor = (model: HoldTerms, nowMs: number): Hold => ({
  kopecks: costInKopecks(model.holdSeconds * 1000, roublesToMicro(model.pricePerSecond)),
  month: monthOf(nowMs),
});

/**
 * The most the month may already have committed (spent plus holds in flight) for one more hold
 * to fit under the limit; null when there is no limit.
 */
export const maxCommittedFor = (limitKopecks: number | null, holdKopecks: number): number | null =>
  limitKopecks === null ? null : limitKopecks - holdKopecks;
