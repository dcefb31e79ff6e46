import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  AdminGetUserCommand,
  AdminSetUserPasswordCommand,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { call, flushAuthorizerCache, localDynamo, runtime } from '../support/api.ts';
import { ownerCognito, signIn } from '../support/owners.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** `npx prognoz …` as an operator runs it, pointed at the test runtime's table. */
const prognoz = async (...args: string[]): Promise<unknown> => {
  const { dynamoEndpoint, tableName, cognitoEndpoint, ownerPoolId } = runtime();
  const { stdout } = await run(
    process.execPath,
    [path.join(ROOT, 'bin', 'prognoz.mjs'), ...args, '--table', tableName, '--user-pool', ownerPoolId, '--json'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
        AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER: cognitoEndpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      },
    },
  );
  return JSON.parse(stdout) as unknown;
};

describe('npx prognoz (the admin command line)', () => {
  it('creates an account, tops it up, sets its limit, and issues and revokes tokens', async () => {
    const created = (await prognoz('accounts', 'create', '--balance', '12.50', '--monthly-limit', '100')) as {
      id: string;
      balance: string;
      monthly_limit: string;
    };
    expect(created).toMatchObject({ balance: '12.50', monthly_limit: '100.00' });

    expect(await prognoz('accounts', 'topup', created.id, '0.50')).toMatchObject({ balance: '13.00' });
    expect(await prognoz('accounts', 'set-limit', created.id, 'none')).toMatchObject({ monthly_limit: null });

    const issued = (await prognoz('tokens', 'create', created.id)) as { id: string; token: string };
    expect(issued.token).toMatch(/^pgz_[0-9A-Za-z]{36}$/);
    const account = await call('account', { token: issued.token });
    expect(account.status).toBe(200);
    expect(account.json).toMatchObject({
      id: created.id,
      balance: 13,
      monthly_limit: null,
      spent_this_month: 0,
      currency: 'RUB',
    });

    const listed = (await prognoz('tokens', 'list', created.id)) as { id: string; hint: string; revoked: boolean }[];
    expect(listed).toEqual([
      {
        id: issued.id,
        hint: `${issued.token.slice(0, 8)}…`,
        created_at: expect.any(String) as string,
        last_used_at: expect.any(String) as string,
        revoked: false,
      },
    ]);

    expect(await prognoz('tokens', 'revoke', created.id, issued.id)).toEqual({ id: issued.id, revoked: true });
    // Refused once API Gateway's cached answer for it is gone (its TTL, or a flush as here).
    await flushAuthorizerCache();
    const refused = await call('account', { token: issued.token });
    expect(refused.status).toBe(401);

    // Nothing in the table holds a token in plaintext: only hashes and short hints.
    const { dynamoEndpoint, tableName, apiToken } = runtime();
    const client = new DynamoDBClient({
      endpoint: dynamoEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    let dump = '';
    let startKey: Record<string, never> | undefined;
    do {
      const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }));
      dump += JSON.stringify(page.Items);
      startKey = page.LastEvaluatedKey as Record<string, never> | undefined;
    } while (startKey);
    for (const token of [issued.token, apiToken]) {
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(token.slice(8));
    }
  });

  it('makes an owner: a user of the owners’ pool, invited with a temporary password, linked to the account', async () => {
    const { id: account } = (await prognoz('accounts', 'create')) as { id: string };
    const email = `invited-${account}@prognoz.test`;

    const added = (await prognoz('owners', 'add', account, '--email', email)) as { sub: string };

    expect(added).toEqual({
      account,
      email,
      sub: expect.any(String) as string,
      status: 'FORCE_CHANGE_PASSWORD',
      created: true,
      operator: false,
    });
    const user = await ownerCognito().send(
      new AdminGetUserCommand({ UserPoolId: runtime().ownerPoolId, Username: email }),
    );
    expect(user.UserStatus).toBe('FORCE_CHANGE_PASSWORD');
    expect(user.UserAttributes?.find((attribute) => attribute.Name === 'sub')?.Value).toBe(added.sub);
    const accounts = dynamoAccountStore(runtime().tableName, localDynamo());
    expect(await accounts.accountForOwner(added.sub)).toMatchObject({ account });
    expect(await prognoz('owners', 'list', account)).toEqual([
      { sub: added.sub, email, linked_at: expect.any(String) as string, status: 'FORCE_CHANGE_PASSWORD' },
    ]);

    // Once they have chosen their password (the console's new-password challenge), their sign-in reaches this account.
    await ownerCognito().send(
      new AdminSetUserPasswordCommand({
        UserPoolId: runtime().ownerPoolId,
        Username: email,
        Password: 'chosen-password-2026',
        Permanent: true,
      }),
    );
    const session = (await signIn(email, 'chosen-password-2026')).AccessToken ?? null;
    expect((await call<{ id: string }>('account', { token: session })).json.id).toBe(account);
    // Not an operator: a deployment's bounds are not theirs to change (a change to what they are already, here).
    const unchanged = { method: 'PATCH', body: { min_instances: 1 } };
    expect((await call('deployments/prognoz/echo', { ...unchanged, token: session })).status).toBe(403);
    // Made one, they may, from their next sign-in.
    expect(await prognoz('owners', 'add', account, '--email', email, '--operator')).toMatchObject({ operator: true });
    const asOperator = (await signIn(email, 'chosen-password-2026')).AccessToken ?? null;
    expect((await call('deployments/prognoz/echo', { ...unchanged, token: asOperator })).status).toBe(200);
  });

  it('refuses an owner of another account, a bad email and an unknown account, changing nothing', async () => {
    const { id: first } = (await prognoz('accounts', 'create')) as { id: string };
    const { id: second } = (await prognoz('accounts', 'create')) as { id: string };
    const email = `taken-${first}@prognoz.test`;
    const { sub } = (await prognoz('owners', 'add', first, '--email', email)) as { sub: string };

    await expect(prognoz('owners', 'add', second, '--email', email)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('already the owner of account') as string,
    });
    await expect(prognoz('owners', 'add', second, '--email', 'not-an-email')).rejects.toMatchObject({ code: 1 });
    await expect(prognoz('owners', 'add', second)).rejects.toMatchObject({ code: 1 });
    await expect(
      prognoz('owners', 'add', '00000000-0000-4000-8000-0000000000fe', '--email', `nobody-${second}@prognoz.test`),
    ).rejects.toMatchObject({ code: 1 });

    const accounts = dynamoAccountStore(runtime().tableName, localDynamo());
    expect(await accounts.accountForOwner(sub)).toMatchObject({ account: first });
    expect(await prognoz('owners', 'list', second)).toEqual([]);
    const stranger = await ownerCognito()
      .send(new AdminGetUserCommand({ UserPoolId: runtime().ownerPoolId, Username: `nobody-${second}@prognoz.test` }))
      .catch((error: unknown) => error);
    expect(stranger).toBeInstanceOf(UserNotFoundException);
  });

  it('says what is wrong, with a non-zero exit', async () => {
    await expect(prognoz('accounts', 'show', '00000000-0000-4000-8000-0000000000ff')).rejects.toMatchObject({
      code: 1,
    });
  });
});
