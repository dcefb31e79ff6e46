import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  UsernameExistsException,
} from '@aws-sdk/client-cognito-identity-provider';
import type { AccountStore } from '../shared/adapters/account-store.ts';
import type { AccountId } from '../shared/domain/ids.ts';

export interface OwnerCredentials {
  readonly email: string;
  readonly password: string;
}

/** The local account's owner: PROGNOZ_OWNER_EMAIL / PROGNOZ_OWNER_PASSWORD, or these defaults (printed at start). */
export const localOwnerCredentials = (env: NodeJS.ProcessEnv = process.env): OwnerCredentials => ({
  email: env.PROGNOZ_OWNER_EMAIL ?? 'owner@prognoz.local',
  password: env.PROGNOZ_OWNER_PASSWORD ?? 'prognoz-owner-2026',
});

/**
 * Makes `credentials` an owner of `account`: the user in the owners' pool (created, or given this
 * password), then linked to the account by its user id, as the admin CLI does on AWS.
 */
export const ensureOwner = async (poolId: string, credentials: OwnerCredentials, account: AccountId, accounts: AccountStore, nowMs: number): Promise<string> => {
  const cognito = new CognitoIdentityProviderClient({});
  try {
    await cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: poolId,
        Username: credentials.email,
        MessageAction: 'SUPPRESS',
        UserAttributes: [
          { Name: 'email', Value: credentials.email },
          { Name: 'email_verified', Value: 'true' },
        ],
      }),
    );
  } catch (error) {
    if (!(error instanceof UsernameExistsException)) throw error;
  }
  await cognito.send(new AdminSetUserPasswordCommand({ UserPoolId: poolId, Username: credentials.email, Password: credentials.password, Permanent: true }));
  const user = await cognito.send(new AdminGetUserCommand({ UserPoolId: poolId, Username: credentials.email }));
  const sub = user.UserAttributes?.find((attribute) => attribute.Name === 'sub')?.Value;
  if (!sub) throw new Error(`the owners' pool gave ${credentials.email} no user id`);
  await accounts.linkOwner(sub, account, nowMs);
  return sub;
};
