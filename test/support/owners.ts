import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { type NewAccount } from '../../shared/ports/account-store.ts';
import { cognitoOwnerPool } from '../../shared/adapters/owner-pool.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { asAccountId } from '../../shared/domain/ids.ts';
import { generateToken } from '../../shared/domain/tokens.ts';
import { addOwner } from '../../shared/use-cases/add-owner.ts';
import { localDynamo, runtime } from './api.ts';

/** A client of the test runtime's Cognito emulator. */
export const ownerCognito = () =>
  new CognitoIdentityProviderClient({
    endpoint: runtime().cognitoEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

/** The console's sign-in: email and password against the owners' pool, as Amplify or a form would do it. */
export const signIn = async (email: string, password: string) => {
  const { AuthenticationResult } = await ownerCognito().send(
    new InitiateAuthCommand({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: runtime().ownerClientId,
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );
  if (!AuthenticationResult?.AccessToken || !AuthenticationResult.IdToken) throw new Error('no tokens');
  return AuthenticationResult;
};

export interface SignedInOwner {
  readonly accountId: string;
  /** An API token of the account. */
  readonly apiToken: string;
  /** The owner's access token (the console's sign-in). */
  readonly session: string;
}

/**
 * A new account with an API token and an owner signed in, made as the service makes them (the
 * account store, and the same addOwner the admin CLI uses, with a password set outright).
 */
export const newAccountWithOwner = async (initial: NewAccount = { balanceKopecks: 10_000 }): Promise<SignedInOwner> => {
  const accounts = dynamoAccountStore(runtime().tableName, localDynamo());
  const accountId = asAccountId(crypto.randomUUID());
  await accounts.createAccount(accountId, Date.now(), initial);
  const apiToken = generateToken();
  await accounts.addToken(accountId, apiToken, Date.now());
  const email = `owner-${accountId}@prognoz.test`;
  const password = `pw-${accountId}`;
  const added = await addOwner(
    { pool: cognitoOwnerPool(runtime().ownerPoolId, ownerCognito()), accounts, clock: systemClock },
    { account: accountId, email, firstPassword: { kind: 'permanent', password } },
  );
  if (!added.ok) throw new Error(added.error);
  const session = (await signIn(email, password)).AccessToken ?? '';
  return { accountId, apiToken, session };
};

/** An owner of a new account in the operators group, signed in after joining it (the group is in the token). */
export const newOperator = async (): Promise<SignedInOwner & { readonly email: string }> => {
  const owner = await newAccountWithOwner();
  const email = `owner-${owner.accountId}@prognoz.test`;
  await cognitoOwnerPool(runtime().ownerPoolId, ownerCognito()).makeOperator(email);
  const session = (await signIn(email, `pw-${owner.accountId}`)).AccessToken ?? '';
  return { ...owner, email, session };
};
