import { CognitoIdentityProviderClient, InitiateAuthCommand, NotAuthorizedException } from '@aws-sdk/client-cognito-identity-provider';
import { describe, expect, it } from 'vitest';
import type { AccountView } from '../../shared/api/account-view.ts';
import { call, createPrediction, runtime } from '../support/api.ts';

const cognito = () => new CognitoIdentityProviderClient({ endpoint: runtime().cognitoEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

/** The console's sign-in: email and password against the owners' pool, as Amplify or a form would do it. */
const signIn = async (email: string, password: string) => {
  const { AuthenticationResult } = await cognito().send(
    new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: runtime().ownerClientId, AuthParameters: { USERNAME: email, PASSWORD: password } }),
  );
  if (!AuthenticationResult?.AccessToken || !AuthenticationResult.IdToken) throw new Error('no tokens');
  return AuthenticationResult;
};

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
