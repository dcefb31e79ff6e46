import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { authorize } from '../../functions/authorizer.ts';
import { dynamoAccountStore } from '../../shared/adapters/account-store.ts';
import { generateToken, hashToken, TOKEN_USE_RECORDED_EVERY_MS, tokenUseIsStale } from '../../shared/domain/tokens.ts';

const NOW = Date.parse('2026-11-21T18:27:49.123Z');
const MINUTE = 60_000;
const token = generateToken();

const event = () =>
  ({
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:eu-west-1:1:api/prod/GET/x',
    headers: { Authorization: `Bearer ${token}` },
  }) as unknown as APIGatewayRequestAuthorizerEvent;

/**
 * DynamoDB as the authorizer meets it: the token's item (last used `lastUsedMs` ago, or never) and
 * its account; `onUpdate` answers the write. Every request is kept.
 */
const table = (lastUsedMs: number | null, onUpdate: () => Promise<unknown> = () => Promise.resolve({})) => {
  const sent: unknown[] = [];
  const client = {
    send: (command: unknown) => {
      sent.push(command);
      if (command instanceof UpdateCommand) return onUpdate();
      if (command instanceof GetCommand && String(command.input.Key?.pk).startsWith('TOKEN#')) {
        return Promise.resolve({
          Item: { account: 'acct-1', token_id: 'tok-1', ...(lastUsedMs === null ? {} : { last_used_ms: lastUsedMs }) },
        });
      }
      return Promise.resolve({ Item: { pk: 'ACCOUNT#acct-1' } });
    },
  } as unknown as DynamoDBDocumentClient;
  return {
    store: dynamoAccountStore('table', client),
    updates: () => sent.filter((command) => command instanceof UpdateCommand),
  };
};

const clock = { now: () => NOW };

describe("an API token's last use", () => {
  it('is stale when none is recorded, or the recorded one is older than the interval', () => {
    expect(tokenUseIsStale(null, NOW)).toBe(true);
    expect(tokenUseIsStale(NOW - TOKEN_USE_RECORDED_EVERY_MS - 1, NOW)).toBe(true);
    expect(tokenUseIsStale(NOW - TOKEN_USE_RECORDED_EVERY_MS, NOW)).toBe(false);
    expect(tokenUseIsStale(NOW - MINUTE, NOW)).toBe(false);
    expect(TOKEN_USE_RECORDED_EVERY_MS).toBe(5 * MINUTE);
  });

  it('is written on a first use, on the condition that no other authorizer wrote a recent one meanwhile', async () => {
    const { store, updates } = table(null);

    const result = await authorize(event(), store, null, clock);

    expect(result.context).toMatchObject({ account: 'acct-1', tokenId: 'tok-1' });
    expect(updates()).toHaveLength(1);
    expect((updates()[0] as UpdateCommand).input).toMatchObject({
      Key: { pk: `TOKEN#${hashToken(token)}`, sk: 'TOKEN' },
      UpdateExpression: 'SET last_used_ms = :now',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(last_used_ms) OR last_used_ms < :cutoff)',
      ExpressionAttributeValues: { ':now': NOW, ':cutoff': NOW - TOKEN_USE_RECORDED_EVERY_MS },
    });
  });

  it('is not written again while the recorded use is recent: a busy token costs no write per request', async () => {
    const { store, updates } = table(NOW - 4 * MINUTE);

    for (let i = 0; i < 10; i++) await authorize(event(), store, null, clock);

    expect(updates()).toHaveLength(0);
  });

  it('is written again once the recorded use is older than the interval', async () => {
    const { store, updates } = table(NOW - 6 * MINUTE);

    await authorize(event(), store, null, clock);

    expect(updates()).toHaveLength(1);
  });

  it('never fails the authorization: a lost race (condition failed) or a failed write lets the token through', async () => {
    const raced = table(null, () =>
      Promise.reject(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} })),
    );
    const broken = table(null, () =>
      Promise.reject(
        Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ThrottlingException' }),
      ),
    );

    for (const { store } of [raced, broken]) {
      const result = await authorize(event(), store, null, clock);
      expect(result.context).toMatchObject({ account: 'acct-1', tokenId: 'tok-1' });
      expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    }
    expect(await raced.store.recordTokenUse(token, NOW)).toBe(false);
  });
});
