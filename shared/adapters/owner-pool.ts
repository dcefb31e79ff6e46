import {
  AdminAddUserToGroupCommand,
  AdminCreateUserCommand,
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  CognitoIdentityProviderClient,
  UserNotFoundException,
  UsernameExistsException,
} from '@aws-sdk/client-cognito-identity-provider';
import { OPERATORS_GROUP } from '../domain/operators.ts';
import type { OwnerPool } from '../ports/owner-pool.ts';

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
    async makeOperator(email) {
      // Adding a member again changes nothing.
      await client.send(
        new AdminAddUserToGroupCommand({ UserPoolId: poolId, Username: email, GroupName: OPERATORS_GROUP }),
      );
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
