import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { runtime } from './api.ts';

/** A client of the test runtime's Cognito emulator. */
export const ownerCognito = () =>
  new CognitoIdentityProviderClient({ endpoint: runtime().cognitoEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

/** The console's sign-in: email and password against the owners' pool, as Amplify or a form would do it. */
export const signIn = async (email: string, password: string) => {
  const { AuthenticationResult } = await ownerCognito().send(
    new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: runtime().ownerClientId, AuthParameters: { USERNAME: email, PASSWORD: password } }),
  );
  if (!AuthenticationResult?.AccessToken || !AuthenticationResult.IdToken) throw new Error('no tokens');
  return AuthenticationResult;
};
