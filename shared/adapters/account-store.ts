import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  paginateQuery,
} from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { formatTimestamp } from '../domain/clock.ts';
import { asAccountId } from '../domain/ids.ts';
import { monthOf } from '../domain/money.ts';
import { generateSigningSecret, hashToken, tokenHint, TOKEN_USE_RECORDED_EVERY_MS } from '../domain/tokens.ts';
import { committedAttributeOf, heldAttributeOf, spentOfAccountItem } from './account-moves.ts';
import { readItems } from './batch-read.ts';
import { runsThisMonth } from './run-counts.ts';
import { dynamo } from './aws-clients.ts';
import {
  accountIndexPartition,
  accountKey,
  OWNER_INDEX,
  SIGN_IN_INDEX_PREFIX,
  signInIndexKey,
  signInKey,
  spendKey,
  TOKEN_INDEX_PREFIX,
  tokenIndexKey,
  tokenKey,
  usernameKey,
} from './table-keys.ts';
import { AccountExists, UsernameTaken, type SigningSecrets, type AccountStore } from '../ports/account-store.ts';

const secretsOf = (item: Record<string, unknown>, nowMs: number): SigningSecrets | null => {
  if (typeof item.signing_secret !== 'string') return null;
  const until = typeof item.previous_valid_until_ms === 'number' ? item.previous_valid_until_ms : null;
  const previous =
    typeof item.previous_signing_secret === 'string' && until !== null && until > nowMs
      ? item.previous_signing_secret
      : null;
  return { current: item.signing_secret, previous, previousValidUntilMs: previous === null ? null : until };
};

export const dynamoAccountStore = (tableName: string, client: DynamoDBDocumentClient = dynamo()): AccountStore => {
  /** The account's own request rate (null: the service default); null when there is no such account. */
  const rateOf = async (account: string): Promise<{ ratePerSecond: number | null } | null> => {
    const { Item } = await client.send(
      new GetCommand({ TableName: tableName, Key: accountKey(account), ProjectionExpression: 'rate_limit_per_second' }),
    );
    if (!Item) return null;
    const rate: unknown = Item.rate_limit_per_second;
    return { ratePerSecond: typeof rate === 'number' ? rate : null };
  };
  /** The account's items in the owner index whose sort key starts with `prefix` (its tokens, its owners), every page, read whole. */
  const indexedUnder = async (account: string, prefix: string): Promise<Record<string, unknown>[]> => {
    const entries: Record<string, unknown>[] = [];
    const pages = paginateQuery(
      { client },
      {
        TableName: tableName,
        IndexName: OWNER_INDEX.name,
        KeyConditionExpression: '#owner = :owner AND begins_with(#sort, :prefix)',
        ExpressionAttributeNames: { '#owner': OWNER_INDEX.partition, '#sort': OWNER_INDEX.sort },
        ExpressionAttributeValues: { ':owner': accountIndexPartition(account), ':prefix': prefix },
      },
    );
    for await (const page of pages) entries.push(...(page.Items ?? []));
    // The index holds their keys; what changes (a token's last use, its revocation) is the item's.
    return readItems(client, tableName, entries);
  };
  return {
    async createAccount(id, nowMs, initial = {}) {
      const username = initial.username ?? id;
      const account = {
        ...accountKey(id),
        type: 'account',
        id,
        username,
        name: initial.displayName ?? username,
        created_at: formatTimestamp(nowMs),
        signing_secret: generateSigningSecret(),
        balance_kopecks: initial.balanceKopecks ?? 0,
        // The balance less the holds of predictions in flight: what a new one may reserve.
        available_kopecks: initial.balanceKopecks ?? 0,
        monthly_limit_kopecks: initial.monthlyLimitKopecks ?? null,
        // The month is open from the start, with nothing committed: no first create opens it.
        [committedAttributeOf(monthOf(nowMs))]: 0,
        [heldAttributeOf(monthOf(nowMs))]: 0,
        ...(initial.ratePerSecond !== undefined ? { rate_limit_per_second: initial.ratePerSecond } : {}),
      };
      try {
        // The account and its claim on its handle, together or not at all.
        await client.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: tableName, Item: account, ConditionExpression: 'attribute_not_exists(pk)' } },
              {
                Put: {
                  TableName: tableName,
                  Item: { ...usernameKey(username), type: 'username', account: id },
                  ConditionExpression: 'attribute_not_exists(pk)',
                },
              },
            ],
          }),
        );
      } catch (error) {
        const [accountFailed, handleFailed] =
          error instanceof TransactionCanceledException
            ? (error.CancellationReasons ?? []).map((reason) => reason.Code === 'ConditionalCheckFailed')
            : [];
        if (accountFailed) throw new AccountExists(id);
        if (handleFailed) throw new UsernameTaken(username);
        throw error;
      }
    },
    async getAccount(id, nowMs) {
      const month = monthOf(nowMs);
      const [account, spend] = await Promise.all([
        client.send(new GetCommand({ TableName: tableName, Key: accountKey(id), ConsistentRead: true })),
        client.send(new GetCommand({ TableName: tableName, Key: spendKey(id, month), ConsistentRead: true })),
      ]);
      const item = account.Item;
      if (!item) return null;
      // An account made before handles existed has none: its id is its handle.
      const username = typeof item.username === 'string' ? item.username : id;
      return {
        id,
        username,
        name: typeof item.name === 'string' ? item.name : username,
        createdAt: String(item.created_at),
        balanceKopecks: Number(item.balance_kopecks ?? 0),
        availableKopecks: Number(item.available_kopecks ?? 0),
        heldKopecks: Number(item.balance_kopecks ?? 0) - Number(item.available_kopecks ?? 0),
        monthlyLimitKopecks: typeof item.monthly_limit_kopecks === 'number' ? item.monthly_limit_kopecks : null,
        month,
        // A month not open on the account item is one an earlier version kept on its spend item alone.
        spentThisMonthKopecks: spentOfAccountItem(item, month) ?? Number(spend.Item?.spent_kopecks ?? 0),
      };
    },
    async monthlyLimitOf(id) {
      const { Item: item } = await client.send(
        new GetCommand({ TableName: tableName, Key: accountKey(id), ConsistentRead: true }),
      );
      if (!item) return null;
      return {
        monthlyLimitKopecks: typeof item.monthly_limit_kopecks === 'number' ? item.monthly_limit_kopecks : null,
      };
    },
    runsThisMonth: (id, model, nowMs) => runsThisMonth(client, tableName, id, model, nowMs),
    async topUp(id, kopecks) {
      if (!Number.isInteger(kopecks) || kopecks <= 0) throw new Error('a top-up is a positive whole number of kopecks');
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: accountKey(id),
          UpdateExpression: 'ADD balance_kopecks :amount, available_kopecks :amount',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':amount': kopecks },
        }),
      );
    },
    async setMonthlyLimit(id, kopecks) {
      if (kopecks !== null && (!Number.isInteger(kopecks) || kopecks < 0))
        throw new Error('a limit is a whole number of kopecks, or none');
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: accountKey(id),
          UpdateExpression: 'SET monthly_limit_kopecks = :limit',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':limit': kopecks },
        }),
      );
    },
    async listTokens(id) {
      return (await indexedUnder(id, TOKEN_INDEX_PREFIX)).map((item) => ({
        id: String(item.token_id),
        hint: String(item.hint),
        name: typeof item.name === 'string' ? item.name : null,
        createdAt: String(item.created_at),
        revoked: item.revoked === true,
        lastUsedAt: typeof item.last_used_ms === 'number' ? formatTimestamp(item.last_used_ms) : null,
      }));
    },
    async revokeToken(id, tokenId) {
      const found = (await indexedUnder(id, TOKEN_INDEX_PREFIX)).find((item) => item.token_id === tokenId);
      if (!found) return false;
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: { pk: String(found.pk), sk: String(found.sk) },
          UpdateExpression: 'SET revoked = :yes',
          ExpressionAttributeValues: { ':yes': true },
        }),
      );
      return true;
    },
    async signingSecrets(id, nowMs) {
      const { Item } = await client.send(
        new GetCommand({ TableName: tableName, Key: accountKey(id), ConsistentRead: true }),
      );
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
              UpdateExpression:
                'SET signing_secret = :next, previous_signing_secret = :current, previous_valid_until_ms = :until',
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
    async addToken(account, token, nowMs, name) {
      const tokenId = randomUUID();
      const createdAt = formatTimestamp(nowMs);
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...tokenKey(hashToken(token)),
            ...tokenIndexKey(account, createdAt, tokenId),
            type: 'token',
            token_id: tokenId,
            hint: tokenHint(token),
            ...(name === undefined ? {} : { name }),
            account,
            created_at: createdAt,
            revoked: false,
          },
        }),
      );
      return { id: tokenId, hint: tokenHint(token), name: name ?? null, createdAt, revoked: false, lastUsedAt: null };
    },
    async accountForToken(token) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: tokenKey(hashToken(token)) }));
      if (!Item || Item.revoked === true || typeof Item.account !== 'string') return null;
      const { ratePerSecond } = (await rateOf(Item.account)) ?? { ratePerSecond: null };
      const lastUsedMs = typeof Item.last_used_ms === 'number' ? Item.last_used_ms : null;
      return {
        account: asAccountId(Item.account),
        tokenId: String(Item.token_id ?? 'legacy'),
        ratePerSecond,
        lastUsedMs,
      };
    },
    async recordTokenUse(token, nowMs) {
      try {
        await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: tokenKey(hashToken(token)),
            UpdateExpression: 'SET last_used_ms = :now',
            // The condition is the throttle: of the authorizers that find a stale use at once, one writes.
            ConditionExpression:
              'attribute_exists(pk) AND (attribute_not_exists(last_used_ms) OR last_used_ms < :cutoff)',
            ExpressionAttributeValues: { ':now': nowMs, ':cutoff': nowMs - TOKEN_USE_RECORDED_EVERY_MS },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    },
    async linkOwner(sub, account, nowMs, email) {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...signInKey(sub),
            ...signInIndexKey(account, sub),
            type: 'sign-in',
            sub,
            account,
            ...(email === undefined ? {} : { email }),
            linked_at: formatTimestamp(nowMs),
          },
        }),
      );
    },
    async ownersOf(account) {
      return (await indexedUnder(account, SIGN_IN_INDEX_PREFIX)).map((item) => ({
        sub: String(item.sub),
        email: typeof item.email === 'string' ? item.email : null,
        linkedAt: String(item.linked_at),
      }));
    },
    async accountForOwner(sub) {
      const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: signInKey(sub) }));
      if (!Item || typeof Item.account !== 'string') return null;
      const found = await rateOf(Item.account);
      return found === null ? null : { account: asAccountId(Item.account), ...found };
    },
  };
};
