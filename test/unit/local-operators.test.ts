import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import {
  CognitoIdentityProviderClient,
  InitiateAuthCommand,
  ListGroupsCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OwnerSignIn } from '../../infra/constructs/owner-sign-in.ts';
import type { CfnTemplate } from '../../local/cfn-template.ts';
import { startCognitoEmulator } from '../../local/cognito-emulator.ts';
import { LOCAL_REGION } from '../../local/paths.ts';
import { provisionUserPools } from '../../local/provision.ts';
import { cognitoOwnerPool } from '../../shared/adapters/owner-pool.ts';
import { OPERATORS_GROUP } from '../../shared/domain/operators.ts';

const stack = new Stack(new App(), 'Owners');
new OwnerSignIn(stack, 'OwnerSignIn');
const template = Template.fromStack(stack).toJSON() as CfnTemplate;
const logicalIdOf = (type: string) =>
  Object.entries(template.Resources).find(([, resource]) => resource.Type === type)?.[0] ?? '';

let moto: Awaited<ReturnType<typeof startCognitoEmulator>>;
let client: CognitoIdentityProviderClient;
let ids: Map<string, string>;

beforeAll(async () => {
  moto = await startCognitoEmulator();
  client = new CognitoIdentityProviderClient({
    endpoint: moto.endpoint,
    region: LOCAL_REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  ids = await provisionUserPools(template, client);
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await moto?.stop();
});

const poolId = () => ids.get(logicalIdOf('AWS::Cognito::UserPool')) ?? '';
const password = 'prognoz-operator-2026';

/** The claims of a new owner's access token, as the pool signs them after a password sign-in. */
const accessClaimsOf = async (email: string, before?: () => Promise<void>): Promise<Record<string, unknown>> => {
  await cognitoOwnerPool(poolId(), client).addUser(email, { kind: 'permanent', password });
  await before?.();
  const signedIn = await client.send(
    new InitiateAuthCommand({
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: ids.get(logicalIdOf('AWS::Cognito::UserPoolClient')),
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );
  const [, payload = ''] = (signedIn.AuthenticationResult?.AccessToken ?? '').split('.');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
};

describe("the operators' group in the local runtime's Cognito emulator", () => {
  it("is made in the owners' pool from the template", async () => {
    const { Groups } = await client.send(new ListGroupsCommand({ UserPoolId: poolId() }));
    expect(Groups?.map((group) => group.GroupName)).toEqual([OPERATORS_GROUP]);
    expect(ids.get(logicalIdOf('AWS::Cognito::UserPoolGroup'))).toBe(OPERATORS_GROUP);
  });

  it("names an operator in the access token's cognito:groups, and an owner who is not one in none", async () => {
    const operator = await accessClaimsOf('operator@prognoz.local', async () => {
      // Made an operator twice (every start of the runtime does it again): still one group.
      await cognitoOwnerPool(poolId(), client).makeOperator('operator@prognoz.local');
      await cognitoOwnerPool(poolId(), client).makeOperator('operator@prognoz.local');
    });
    expect(operator['cognito:groups']).toEqual([OPERATORS_GROUP]);
    expect(await accessClaimsOf('owner@prognoz.local')).not.toHaveProperty('cognito:groups');
  });
});
