import {
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  UserNotFoundException,
  UsernameExistsException,
} from '@aws-sdk/client-cognito-identity-provider';

/**
 * How a new owner gets their first password: Cognito's invitation email with a temporary one
 * (the console asks for a new one at the first sign-in), or one set outright and for good (the
 * local runtime's owner, whose password is printed at start).
 */
export type FirstPassword = { readonly kind: 'invitation' } | { readonly kind: 'permanent'; readonly password: string };

export interface PoolUser {
  /** Cognito's user id: what an owner's access token names, and what the table links to an account. */
  readonly sub: string;
  /** FORCE_CHANGE_PASSWORD until an invited owner chooses a password, then CONFIRMED. */
  readonly status: string;
  /** False when the user was in the pool already (nothing about them was changed but a permanent password). */
  readonly created: boolean;
}

/** The owners' user pool (infra/constructs/owner-sign-in.ts), as the admin API sees it. */
export interface OwnerPool {
  /** Creates the user with this email, or finds the one that has it. */
  addUser(email: string, firstPassword: FirstPassword): Promise<PoolUser>;
  /** The user's status (FORCE_CHANGE_PASSWORD, CONFIRMED, …), or null when the pool has no such user. */
  statusOf(email: string): Promise<string | null>;
}

export const cognitoOwnerPool = (
  poolId: string,
  client: CognitoIdentityProviderClient = new CognitoIdentityProviderClient({}),
): OwnerPool => {
  const getUser = async (email: string) => {
    const user = await client.send(new AdminGetUserCommand({ UserPoolId: poolId, Username: email }));
    const sub = user.UserAttributes?.find((attribute) => attribute.Name === 'sub')?.Value;
    if (!sub) throw new Error(`the owners' pool gave ${email} no user id`);
    return { sub, status: user.UserStatus ?? 'UNKNOWN' };
  };
  return {
    async addUser(email, firstPassword) {
      let created = true;
      try {
        await client.send(
          new AdminCreateUserCommand({
            UserPoolId: poolId,
            Username: email,
            // Without a MessageAction Cognito emails the invitation with a temporary password.
            ...(firstPassword.kind === 'permanent'
              ? { MessageAction: 'SUPPRESS' }
              : { DesiredDeliveryMediums: ['EMAIL'] }),
            UserAttributes: [
              { Name: 'email', Value: email },
              // The invitation goes to this address, and password recovery is by email only.
              { Name: 'email_verified', Value: 'true' },
            ],
          }),
        );
      } catch (error) {
        if (!(error instanceof UsernameExistsException)) throw error;
        created = false;
      }
      if (firstPassword.kind === 'permanent') {
        await client.send(
          new AdminSetUserPasswordCommand({
            UserPoolId: poolId,
            Username: email,
            Password: firstPassword.password,
            Permanent: true,
          }),
        );
      }
      return { ...(await getUser(email)), created };
    },
    async statusOf(email) {
      try {
        return (await getUser(email)).status;
      } catch (error) {
        if (error instanceof UserNotFoundException) return null;
        throw error;
      }
    },
  };
};
