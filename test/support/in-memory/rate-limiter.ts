import { rateWindowAt, roomWhileBelow } from '../../../shared/domain/rate-windows.ts';
import type { RateWindows } from '../../../shared/ports/rate-limiter.ts';
import { answer } from './answer.ts';

/** The one-second windows counted in memory, as the DynamoDB adapter counts them in the table; `reservations` counts its calls (writes). */
export const inMemoryRateWindows = (): RateWindows & { readonly reservations: () => number } => {
  const counts = new Map<string, number>();
  let reservations = 0;
  return {
    reservations: () => reservations,
    reserve: (scope, counters, permits, nowMs) =>
      answer(() => {
        reservations += 1;
        const { window } = rateWindowAt(nowMs);
        const keyOf = (key: string) => `${scope}#${window}#${key}`;
        if (counters.some(({ key, limit }) => (counts.get(keyOf(key)) ?? 0) >= roomWhileBelow(limit, permits)))
          return false;
        for (const { key } of counters) counts.set(keyOf(key), (counts.get(keyOf(key)) ?? 0) + permits);
        return true;
      }),
  };
};
