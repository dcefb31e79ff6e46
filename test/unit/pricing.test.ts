import { describe, expect, it } from 'vitest';
import { costInKopecks, kopecksToRoubles, roublesToMicro } from '../../shared/domain/pricing.ts';

describe('pricing', () => {
  it('parses rouble prices exactly', () => {
    expect(roublesToMicro('0.01')).toBe(10_000n);
    expect(roublesToMicro('1')).toBe(1_000_000n);
    expect(roublesToMicro('0.000001')).toBe(1n);
    expect(() => roublesToMicro('0.0000001')).toThrow();
    expect(() => roublesToMicro('-1')).toThrow();
  });

  it('rounds every started kopeck up, with no floating-point drift', () => {
    const price = roublesToMicro('0.01'); // 1 kopeck a second
    expect(costInKopecks(0, price)).toBe(0);
    expect(costInKopecks(1, price)).toBe(1);
    expect(costInKopecks(1000, price)).toBe(1);
    expect(costInKopecks(1001, price)).toBe(2);
    expect(costInKopecks(2_060, price)).toBe(3);
    // 0.1 + 0.2 style drift cannot happen: 300 s at 0.003 ₽/s is exactly 90 kopecks.
    expect(costInKopecks(300_000, roublesToMicro('0.003'))).toBe(90);
    expect(kopecksToRoubles(90)).toBe(0.9);
  });

  it('refuses fractional or negative runtimes', () => {
    expect(() => costInKopecks(1.5, 1n)).toThrow();
    expect(() => costInKopecks(-1, 1n)).toThrow();
  });
});
