/**
 * Money is kept in integers: prices in micro-roubles per second, costs in whole kopecks.
 * 1 ₽ = 100 kopecks = 1,000,000 µ₽, so no floating-point drift ever enters a sum.
 */
const MICRO_ROUBLES_PER_ROUBLE = 1_000_000n;
const MICRO_ROUBLES_PER_KOPECK = 10_000n;
const MS_PER_SECOND = 1_000n;

/** Parses a decimal rouble amount such as `"0.01"` into micro-roubles, exactly. */
export const roublesToMicro = (roubles: string): bigint => {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(roubles);
  if (!match) throw new Error(`not a rouble amount with at most 6 decimals: ${roubles}`);
  const whole = BigInt(match[1] ?? '0');
  const fraction = BigInt((match[2] ?? '').padEnd(6, '0'));
  return whole * MICRO_ROUBLES_PER_ROUBLE + fraction;
};

/** runtime × price, rounded up to the whole kopeck. */
export const costInKopecks = (runtimeMs: number, pricePerSecondMicro: bigint): number => {
  if (!Number.isInteger(runtimeMs) || runtimeMs < 0)
    throw new Error(`runtime must be whole non-negative ms: ${runtimeMs}`);
  const microTimesMs = BigInt(runtimeMs) * pricePerSecondMicro; // µ₽·ms/s
  const divisor = MS_PER_SECOND * MICRO_ROUBLES_PER_KOPECK;
  return Number((microTimesMs + divisor - 1n) / divisor);
};

/** Kopecks as the float roubles the API shows (`cost: 0.05`). */
export const kopecksToRoubles = (kopecks: number): number => kopecks / 100;
