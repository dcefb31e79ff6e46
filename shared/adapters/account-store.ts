import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { formatTimestamp } from '../domain/clock.ts';
import { asAccountId, type AccountId } from '../domain/ids.ts';
import { generateSigningSecret, hashToken } from '../domain/tokens.ts';
import { dynamo } from './aws-clients.ts';
import { accountKey, tokenKey } from './table-keys.ts';

export interface AccountStore {
  /** Creates the account with its webhook signing secret. */
  createAccount(id: AccountId, nowMs: number): Promise<void>;
  signingSecret(id: AccountId): Promise<string | null>;
  /** Stores the token's hash (never the token) pointing at its account. Idempotent. */
  addToken(account: AccountId, token: string, nowMs: number): Promise<void>;
  /** The account behind a token, or null for an unknown or revoked one. */
  accountForToken(token: string): Promise<AccountId | null>;
}

export const dynamoAccountStore = (tableName: string, client: DynamoDBDocumentClient = dynamo()): AccountStore => ({
  async createAccount(id, nowMs) {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...accountKey(id), type: 'account', id, created_at: formatTimestamp(nowMs), signing_secret: generateSigningSecret() },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  },
  async signingSecret(id) {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: accountKey(id), ConsistentRead: true }));
    return typeof Item?.signing_secret === 'string' ? Item.signing_secret : null;
  },
  async addToken(account, token, nowMs) {
    await client.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...tokenKey(hashToken(token)), type: 'token', account, created_at: formatTimestamp(nowMs), revoked: false },
      }),
    );
  },
  async accountForToken(token) {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: tokenKey(hashToken(token)) }));
    if (!Item || Item.revoked === true || typeof Item.account !== 'string') return null;
    return asAccountId(Item.account);
  },
});
