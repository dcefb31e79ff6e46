import { describe, expect, it } from 'vitest';
import { parseIdempotencyKey } from '../../functions/http/request-options.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { claimIdempotencyKey, IDEMPOTENCY_WINDOW_SECONDS } from '../../shared/domain/idempotency.ts';
import {
  canonicalJson,
  requestFingerprint,
  type CreateFingerprintParts,
} from '../../shared/domain/request-fingerprint.ts';

const errorOf = (fn: () => unknown): PrognozError | undefined => {
  try {
    fn();
  } catch (error) {
    if (error instanceof PrognozError) return error;
    throw error;
  }
  return undefined;
};

describe('the Idempotency-Key header', () => {
  it('is absent: no key', () => {
    expect(parseIdempotencyKey({})).toBeNull();
  });

  it('is read as a Structured Field string, or bare', () => {
    expect(parseIdempotencyKey({ 'idempotency-key': '"8e03978e-40d5-43e8-bc93-6894a57f9324"' })).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey({ 'idempotency-key': '8e03978e-40d5-43e8-bc93-6894a57f9324' })).toBe(
      '8e03978e-40d5-43e8-bc93-6894a57f9324',
    );
    expect(parseIdempotencyKey({ 'idempotency-key': '  "order 42"  ' })).toBe('order 42');
    expect(parseIdempotencyKey({ 'idempotency-key': String.raw`"say \"hi\" \\ bye"` })).toBe(
      String.raw`say "hi" \ bye`,
    );
    expect(parseIdempotencyKey({ 'idempotency-key': 'k'.repeat(255) })).toBe('k'.repeat(255));
    expect(parseIdempotencyKey({ 'idempotency-key': `"${'k'.repeat(255)}"` })).toBe('k'.repeat(255));
  });

  it('is a 400 invalid_header naming the header when empty, too long, not printable ASCII or a broken string', () => {
    for (const bad of [
      '',
      '   ',
      '""',
      'k'.repeat(256),
      `"${'k'.repeat(256)}"`,
      'ключ',
      'tab\there',
      '"unclosed',
      '"a"b"',
      String.raw`"bad \n escape"`,
      '"a"; p=1',
    ]) {
      const error = errorOf(() => parseIdempotencyKey({ 'idempotency-key': bad }));
      expect(error?.code, JSON.stringify(bad)).toBe('invalid_header');
      expect(error?.message).toContain('Idempotency-Key');
    }
  });
});

describe('a create’s fingerprint', () => {
  const base: CreateFingerprintParts = {
    model: 'prognoz/echo',
    input: { text: 'hi', sleep: 1, nested: { b: [1, { y: 2, x: 1 }], a: null } },
    webhook: 'https://example.com/hook',
    webhookEvents: ['completed', 'start'],
    cancelAfterSeconds: 60,
  };

  it('is a sha256 that does not depend on key order, at any depth, nor on the order of the events', () => {
    expect(requestFingerprint(base)).toMatch(/^[0-9a-f]{64}$/);
    const reordered: CreateFingerprintParts = {
      cancelAfterSeconds: 60,
      webhookEvents: ['start', 'completed'],
      webhook: 'https://example.com/hook',
      input: { nested: { a: null, b: [1, { x: 1, y: 2 }] }, sleep: 1, text: 'hi' },
      model: 'prognoz/echo',
    };
    expect(requestFingerprint(reordered)).toBe(requestFingerprint(base));
  });

  it('changes with the model, any input value, array order, the webhook, its events or the deadline', () => {
    const variants: CreateFingerprintParts[] = [
      { ...base, model: 'prognoz/other' },
      { ...base, input: { ...base.input, text: 'hi!' } },
      { ...base, input: { ...base.input, sleep: '1' } },
      { ...base, input: { ...base.input, extra: true } },
      { ...base, input: { ...base.input, nested: { b: [{ y: 2, x: 1 }, 1], a: null } } },
      { ...base, webhook: null },
      { ...base, webhookEvents: null },
      { ...base, webhookEvents: ['completed'] },
      { ...base, cancelAfterSeconds: null },
      { ...base, cancelAfterSeconds: 61 },
    ];
    const fingerprints = new Set([base, ...variants].map(requestFingerprint));
    expect(fingerprints.size).toBe(variants.length + 1);
  });

  it('rests on canonical JSON: keys sorted, arrays kept in order', () => {
    expect(canonicalJson({ b: 1, a: [3, { d: 1, c: 2 }] })).toBe('{"a":[3,{"c":2,"d":1}],"b":1}');
  });
});

describe('a claim on a key', () => {
  it('holds the key’s sha256, never the key, for 24 hours', () => {
    const claim = claimIdempotencyKey('order 42', 'f'.repeat(64), 1_700_000_000_999);
    expect(claim.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(claim.keyHash).not.toContain('order');
    expect(claim.keyHash).toBe(claimIdempotencyKey('order 42', 'other', 0).keyHash);
    expect(claim.keyHash).not.toBe(claimIdempotencyKey('order 43', 'f'.repeat(64), 0).keyHash);
    expect(claim.madeAtSeconds).toBe(1_700_000_000);
    expect(claim.expiresAtSeconds).toBe(1_700_000_000 + IDEMPOTENCY_WINDOW_SECONDS);
    expect(IDEMPOTENCY_WINDOW_SECONDS).toBe(86_400);
  });
});
