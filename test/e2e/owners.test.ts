import { NotAuthorizedException } from '@aws-sdk/client-cognito-identity-provider';
import { describe, expect, it } from 'vitest';
import type { AccountView } from '../../shared/api/account-view.ts';
import { call, createPrediction, flushAuthorizerCache, runtime } from '../support/api.ts';
import { signIn } from '../support/owners.ts';

describe('an account owner signed in with the owners’ user pool (Cognito emulator)', () => {
  it('reaches their account through the API with their access token', async () => {
    const { owner, accountId } = runtime();
    const tokens = await signIn(owner.email, owner.password);
    const account = await call<AccountView>('account', { token: tokens.AccessToken });
    expect(account.status).toBe(200);
    expect(account.json.id).toBe(accountId);
    const created = await createPrediction({ text: 'from the console' }, { token: tokens.AccessToken ?? null });
    expect(created.status).toBe(201);
  });

  it('is refused with a wrong password by the pool, and a token that is not a valid access token by the API', async () => {
    const { owner } = runtime();
    await expect(signIn(owner.email, `${owner.password}-wrong`)).rejects.toBeInstanceOf(NotAuthorizedException);
    const tokens = await signIn(owner.email, owner.password);
    const [header, payload, signature] = (tokens.AccessToken ?? '').split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${signature}`;
    const refused = [
      forged, // the signature no longer matches
      `${header}.${payload}.${signature.slice(0, -4)}AAAA`,
      tokens.IdToken ?? '', // an id token is not an access token
    ];
    for (const token of refused) {
      const response = await call<{ error: { code: string } }>('account', { token });
      expect(response.status, token.slice(0, 20)).toBe(401);
      expect(response.json.error.code).toBe('invalid_token');
    }
  });
});

describe('API tokens, managed by a signed-in owner (the console’s token self-service)', () => {
  it('are created with a name and shown once, work at once, are listed by hint, and are refused once revoked and the authorizer’s cached answer is gone', async () => {
    const { owner, accountId } = runtime();
    const session = (await signIn(owner.email, owner.password)).AccessToken ?? null;
    const created = await call<{ id: string; token: string; name: string; hint: string; revoked: boolean }>(
      'account/tokens',
      {
        method: 'POST',
        body: { name: '  laptop  ' },
        token: session,
      },
    );
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'laptop', revoked: false });
    expect(created.json.token.startsWith(created.json.hint.replace(/…$/, ''))).toBe(true);

    const used = await call<AccountView>('account', { token: created.json.token });
    expect(used.status).toBe(200);
    expect(used.json.id).toBe(accountId);

    const listed = await call<{ results: Record<string, unknown>[] }>('account/tokens', { token: session });
    expect(listed.status).toBe(200);
    const mine = listed.json.results.find((token) => token.id === created.json.id);
    expect(mine).toMatchObject({ name: 'laptop', hint: created.json.hint, revoked: false });
    expect(JSON.stringify(listed.json)).not.toContain(created.json.token);

    const revoked = await call(`account/tokens/${created.json.id}`, { method: 'DELETE', token: session });
    expect(revoked.status).toBe(204);
    // As on AWS, API Gateway's cached answer for the token (the template's TTL, 60 s) still lets it
    // in, until it expires or the stage's authorizer cache is flushed.
    expect((await call('account', { token: created.json.token })).status).toBe(200);
    await flushAuthorizerCache();
    const refused = await call<{ error: { code: string } }>('account', { token: created.json.token });
    expect(refused.status).toBe(401);
    expect(refused.json.error.code).toBe('invalid_token');
    const again = await call<{ error: { code: string } }>(`account/tokens/${created.json.id}`, {
      method: 'DELETE',
      token: session,
    });
    expect(again.status).toBe(204); // revoking a revoked token changes nothing
    const unknown = await call<{ error: { code: string } }>('account/tokens/no-such-token', {
      method: 'DELETE',
      token: session,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('token_not_found');
  });

  it('show their last use: none until a request uses the token, then its time, not rewritten by the next request', async () => {
    const { owner } = runtime();
    const session = (await signIn(owner.email, owner.password)).AccessToken ?? null;
    const created = await call<{ id: string; token: string; last_used_at: string | null }>('account/tokens', {
      method: 'POST',
      body: { name: 'last use' },
      token: session,
    });
    expect(created.json.last_used_at).toBeNull();
    const lastUse = async () =>
      (
        await call<{ results: { id: string; last_used_at: string | null }[] }>('account/tokens', { token: session })
      ).json.results.find((t) => t.id === created.json.id)?.last_used_at;
    expect(await lastUse()).toBeNull();

    const before = Date.now();
    expect((await call('account', { token: created.json.token })).status).toBe(200);
    const first = await lastUse();
    expect(first).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(Date.parse(first ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(first ?? '')).toBeLessThanOrEqual(Date.now());

    // Within the recording interval a request writes nothing: the last use stays the first one's.
    // The authorizer runs again (not API Gateway's cached answer) once the cache is flushed.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await flushAuthorizerCache();
    expect((await call('account', { token: created.json.token })).status).toBe(200);
    expect(await lastUse()).toBe(first);
  });

  it('are never listed, created or revoked with an API token (a leaked token must not mint more), and a bad name changes nothing', async () => {
    const { apiToken, owner } = runtime();
    const before = (
      await call<{ results: unknown[] }>('account/tokens', {
        token: (await signIn(owner.email, owner.password)).AccessToken ?? null,
      })
    ).json.results.length;
    for (const [path, method, body] of [
      ['account/tokens', 'GET', undefined],
      ['account/tokens', 'POST', { name: 'minted' }],
      ['account/tokens/anything', 'DELETE', undefined],
    ] as const) {
      const response = await call<{ error: { code: string } }>(path, {
        method,
        token: apiToken,
        ...(body ? { body } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.json.error.code).toBe('owner_sign_in_required');
    }
    const session = (await signIn(owner.email, owner.password)).AccessToken ?? null;
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(65) }, { name: 'ok', extra: true }]) {
      const response = await call<{ error: { code: string } }>('account/tokens', {
        method: 'POST',
        body,
        token: session,
      });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json.error.code).toBe('invalid_body');
    }
    expect((await call<{ results: unknown[] }>('account/tokens', { token: session })).json.results.length).toBe(before);
  });
});
