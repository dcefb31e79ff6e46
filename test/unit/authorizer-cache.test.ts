import { describe, expect, it } from 'vitest';
import { authorizerCache, authorizerCachingOf, identityOf } from '../../local/authorizer-cache.ts';
import type { CfnTemplate } from '../../local/template.ts';

const templateWith = (properties: Record<string, unknown>): CfnTemplate => ({
  Resources: {
    Fn: { Type: 'AWS::Lambda::Function' },
    BearerAuthorizer: { Type: 'AWS::ApiGateway::Authorizer', Properties: { Type: 'REQUEST', ...properties } },
  },
});

/** An authorizer that counts its calls and answers what the test sets. */
const authorizer = () => {
  const calls = { count: 0 };
  let answer = 'allow';
  return {
    calls,
    answerWith: (next: string) => {
      answer = next;
    },
    ask: () => {
      calls.count += 1;
      return Promise.resolve(answer);
    },
  };
};

describe('the local API front’s authorizer cache (API Gateway’s, as the template configures it)', () => {
  it('takes its TTL and identity sources from the template’s authorizer', () => {
    expect(
      authorizerCachingOf(
        templateWith({ IdentitySource: 'method.request.header.Authorization', AuthorizerResultTtlInSeconds: 60 }),
      ),
    ).toEqual({ ttlSeconds: 60, identityHeaders: ['authorization'] });
    expect(
      authorizerCachingOf(
        templateWith({ IdentitySource: 'method.request.header.Authorization, method.request.header.X-Key' }),
      ),
    ).toEqual({ ttlSeconds: 300, identityHeaders: ['authorization', 'x-key'] });
    expect(authorizerCachingOf(templateWith({ AuthorizerResultTtlInSeconds: 0 }))).toEqual({
      ttlSeconds: 0,
      identityHeaders: [],
    });
    expect(() =>
      authorizerCachingOf(
        templateWith({ IdentitySource: 'method.request.querystring.token', AuthorizerResultTtlInSeconds: 60 }),
      ),
    ).toThrow(/by headers only/);
    expect(() => authorizerCachingOf(templateWith({ AuthorizerResultTtlInSeconds: 60 }))).toThrow(/identity source/);
    expect(() => authorizerCachingOf({ Resources: {} })).toThrow(/declares 0/);
  });

  it('keys a request by its identity headers, and gives none to a request that lacks one', () => {
    const caching = { ttlSeconds: 60, identityHeaders: ['authorization'] };
    expect(identityOf(caching, { authorization: 'Bearer a', 'user-agent': 'x' })).toBe(
      identityOf(caching, { authorization: 'Bearer a', 'user-agent': 'y' }),
    );
    expect(identityOf(caching, { authorization: 'Bearer a' })).not.toBe(
      identityOf(caching, { authorization: 'Bearer b' }),
    );
    expect(identityOf(caching, {})).toBeNull();
    expect(identityOf(caching, { authorization: '' })).toBeNull();
  });

  it('reuses an answer, allow or deny, for the TTL, and asks again once it has expired', async () => {
    let now = 1_000_000;
    const cache = authorizerCache<string>(60, () => now);
    const auth = authorizer();

    expect(await cache.answer('token', auth.ask)).toBe('allow');
    // The token is revoked: within the TTL the cached answer stands, as on AWS.
    auth.answerWith('deny');
    now += 59_999;
    expect(await cache.answer('token', auth.ask)).toBe('allow');
    expect(auth.calls.count).toBe(1);

    now += 1;
    expect(await cache.answer('token', auth.ask)).toBe('deny');
    expect(auth.calls.count).toBe(2);
    // A deny is cached too.
    auth.answerWith('allow');
    now += 30_000;
    expect(await cache.answer('token', auth.ask)).toBe('deny');
    expect(auth.calls.count).toBe(2);
    // Each identity has its own answer.
    expect(await cache.answer('another token', auth.ask)).toBe('allow');
    expect(auth.calls.count).toBe(3);
  });

  it('asks every time for a request without identity, or when the TTL is 0', async () => {
    const auth = authorizer();
    const cache = authorizerCache<string>(60, () => 0);
    await cache.answer(null, auth.ask);
    await cache.answer(null, auth.ask);
    const uncached = authorizerCache<string>(0, () => 0);
    await uncached.answer('token', auth.ask);
    await uncached.answer('token', auth.ask);
    expect(auth.calls.count).toBe(4);
  });

  it('shares one call among requests that arrive while it runs, and keeps no failed call', async () => {
    const cache = authorizerCache<string>(60, () => 0);
    let calls = 0;
    const { promise, resolve } = Promise.withResolvers<string>();
    const slow = () => {
      calls += 1;
      return promise;
    };
    const both = Promise.all([cache.answer('token', slow), cache.answer('token', slow)]);
    resolve('allow');
    expect(await both).toEqual(['allow', 'allow']);
    expect(calls).toBe(1);

    const failing = () => Promise.reject(new Error('the authorizer timed out'));
    await expect(cache.answer('other', failing)).rejects.toThrow('timed out');
    expect(await cache.answer('other', () => Promise.resolve('allow after all'))).toBe('allow after all');
  });

  it('forgets every answer when flushed', async () => {
    const cache = authorizerCache<string>(60, () => 0);
    const auth = authorizer();
    await cache.answer('a', auth.ask);
    await cache.answer('b', auth.ask);
    expect(cache.flush()).toBe(2);
    auth.answerWith('deny');
    expect(await cache.answer('a', auth.ask)).toBe('deny');
    expect(auth.calls.count).toBe(3);
  });
});
