import { describe, expect, it } from 'vitest';
import { signStandardWebhook, signWebhook, verifyWebhook } from '../../shared/domain/webhook-signature.ts';

// Computed independently (Python's hmac + base64) from the signature in docs/interface.md (interface: Webhook signing).
const VECTOR = {
  secret: 'whsec_test_secret',
  id: 'msg_2Kx',
  timestamp: 1795286117,
  body: '{"id":"p","status":"succeeded"}',
  signature: '8hDn62oYThcckAOqu/huXJy6ErDEcGneAudlE928GRg=',
};

describe('webhook signatures', () => {
  it('match the known test vector', () => {
    expect(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
  });

  it('match the Standard Webhooks test vector in the webhook-signature header', () => {
    expect(
      signStandardWebhook(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('compare the header whole (interface: Webhook signing): one signature, which a receiver mid-rotation checks against both its secrets', () => {
    const headers = {
      id: 'id',
      timestamp: String(VECTOR.timestamp),
      signature: signWebhook('whsec_new', 'id', VECTOR.timestamp, 'b'),
    };
    const now = { nowSeconds: VECTOR.timestamp };
    expect(verifyWebhook('whsec_new', headers, 'b', now)).toBe(true);
    expect(verifyWebhook(['whsec_old', 'whsec_new'], headers, 'b', now)).toBe(true);
    expect(verifyWebhook('whsec_old', headers, 'b', now)).toBe(false);
    // Two signatures joined in the one header are not a signature.
    const joined = `${headers.signature},${signWebhook('whsec_old', 'id', VECTOR.timestamp, 'b')}`;
    expect(verifyWebhook(['whsec_old', 'whsec_new'], { ...headers, signature: joined }, 'b', now)).toBe(false);
  });

  it('verify only the exact body, id and timestamp, within the tolerance', () => {
    const headers = { id: VECTOR.id, timestamp: String(VECTOR.timestamp), signature: VECTOR.signature };
    const now = { nowSeconds: VECTOR.timestamp + 10 };
    expect(verifyWebhook(VECTOR.secret, headers, VECTOR.body, now)).toBe(true);
    expect(verifyWebhook(VECTOR.secret, headers, `${VECTOR.body} `, now)).toBe(false);
    expect(verifyWebhook('whsec_other', headers, VECTOR.body, now)).toBe(false);
    expect(verifyWebhook(VECTOR.secret, { ...headers, id: 'msg_other' }, VECTOR.body, now)).toBe(false);
    expect(verifyWebhook(VECTOR.secret, headers, VECTOR.body, { nowSeconds: VECTOR.timestamp + 301 })).toBe(false);
  });
});
