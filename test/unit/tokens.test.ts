import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { authorize } from '../../functions/authorizer.ts';
import type { AccountStore } from '../../shared/ports/account-store.ts';
import { generateToken, hashToken, looksLikeToken, TOKEN_PREFIX } from '../../shared/domain/tokens.ts';

const event = (authorization: string) =>
  ({
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:eu-west-1:1:api/prod/GET/x',
    headers: { Authorization: authorization },
  }) as unknown as APIGatewayRequestAuthorizerEvent;

/** A store that fails the test if the authorizer ever reaches the database. */
const untouchable: AccountStore = new Proxy({} as AccountStore, {
  get: () => () => {
    throw new Error('the database was read');
  },
});

describe('API tokens', () => {
  it('carry the prefix and a checksum that validates', () => {
    const token = generateToken();
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(token).toHaveLength(40);
    expect(looksLikeToken(token)).toBe(true);
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).not.toContain(token.slice(TOKEN_PREFIX.length));
  });

  it('reject a single mistyped character', () => {
    const token = generateToken();
    for (let i = TOKEN_PREFIX.length; i < token.length; i++) {
      const wrong = token.slice(0, i) + (token[i] === 'a' ? 'b' : 'a') + token.slice(i + 1);
      expect(looksLikeToken(wrong), wrong).toBe(false);
    }
  });

  it('10⁵ random strings with the right prefix but a bad checksum are rejected without a database read', async () => {
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    let rejected = 0;
    for (let n = 0; n < 100_000; n++) {
      let body = '';
      for (let i = 0; i < 36; i++) body += alphabet.charAt(Math.floor(Math.random() * 62));
      const candidate = `${TOKEN_PREFIX}${body}`;
      if (looksLikeToken(candidate)) continue; // a random string can, rarely, carry a valid checksum
      const result = await authorize(event(`Bearer ${candidate}`), untouchable, null);
      expect(result.context).toMatchObject({ authError: 'invalid_token' });
      rejected++;
    }
    expect(rejected).toBeGreaterThan(99_990);
  });
});
