import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { formatTimestamp } from '../domain/clock.ts';
import { asAccountId, type AccountId } from '../domain/ids.ts';
import { generateSigningSecret, hashToken } from '../domain/tokens.ts';
import { dynamo } from './aws-clients.ts';
import { accountKey, tokenKey } from './table-keys.ts';

/** The secrets that sign an account's webhooks: the current one, and the one being rotated out. */
export interface SigningSecrets {
  readonly current: string;
  /** Still signs (next to the current one) until `previousValidUntilMs`. */
  readonly previous: string | null;
  readonly previousValidUntilMs: number | null;
}

export interface AccountStore {
  /** Creates the account with its webhook signing secret. */
  createAccount(id: AccountId, nowMs: number): Promise<void>;
  signingSecrets(id: AccountId, nowMs: number): Promise<SigningSecrets | null>;
  /** A new current secret; the old one keeps signing for `graceMs`. */
  rotateSigningSecret(id: AccountId, nowMs: number, graceMs: number): Promise<SigningSecrets>;
  /** Stores the token's hash (never the token) pointing at its account. Idempotent. */
  addToken(account: AccountId, token: string, nowMs: number): Promise<void>;
  /** The account behind a token, or null for an unknown or revoked one. */
  accountForToken(token: string): Promise<AccountId | null>;
}

const secretsOf = (item: Record<string, unknown>, nowMs: number): SigningSecrets | null => {
  if (typeof item.signing_secret !== 'string') return null;
  const until = typeof item.previous_valid_until_ms === 'number' ? item.previous_valid_until_ms : null;
  const previous = typeof item.previous_signing_secret === 'string' && until !== null && until > nowMs ? item.previous_signing_secret : null;
  return { current: item.signing_secret, previous, previousValidUntilMs: previous === null ? null : until };
};

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
  async signingSecrets(id, nowMs) {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: accountKey(id), ConsistentRead: true }));
    return Item ? secretsOf(Item, nowMs) : null;
  },
  async rotateSigningSecret(id, nowMs, graceMs) {
    for (;;) {
      const before = await this.signingSecrets(id, nowMs);
      if (!before) throw new Error(`account ${id} does not exist`);
      const next = generateSigningSecret();
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: accountKey(id),
            UpdateExpression: 'SET signing_secret = :next, previous_signing_secret = :current, previous_valid_until_ms = :until',
            ConditionExpression: 'signing_secret = :current',
            ExpressionAttributeValues: { ':next': next, ':current': before.current, ':until': nowMs + graceMs },
          }),
        );
        return { current: next, previous: before.current, previousValidUntilMs: nowMs + graceMs };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
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
