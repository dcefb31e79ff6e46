import { describe, expect, it } from 'vitest';
import { keptBody } from '../../shared/adapters/request-log.ts';

describe('the part of a body a kept request holds', () => {
  it('is the whole body when it fits', () => {
    expect(keptBody('{"text":"привет"}', 100)).toEqual({ body: '{"text":"привет"}', bytes: 23, truncated: false });
  });

  it('is cut where a character begins, never inside one', () => {
    // 'ж' is two bytes, '🀄' four: a cut at 5 bytes would split either.
    expect(keptBody('жжж', 5)).toEqual({ body: 'жж', bytes: 6, truncated: true });
    expect(keptBody('a🀄b', 3)).toEqual({ body: 'a', bytes: 6, truncated: true });
    expect(keptBody('a🀄b', 5)).toEqual({ body: 'a🀄', bytes: 6, truncated: true });
  });
});
