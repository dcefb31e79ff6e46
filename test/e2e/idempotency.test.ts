import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { meterSnapshot } from '../../bench/local-endpoints.ts';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { idempotencyKey } from '../../shared/adapters/table-keys.ts';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { holdFor } from '../../shared/domain/billing.ts';
import { claimIdempotencyKey } from '../../shared/domain/idempotency.ts';
import { asAccountId, newPredictionId } from '../../shared/domain/ids.ts';
import { createPrediction } from '../../shared/domain/transition.ts';
import {
  accountOf,
  call,
  createOtherAccount,
  echoExecutionArn,
  localDynamo,
  localStepFunctions,
  runtime,
  untilTerminal,
  type CallOptions,
} from '../support/api.ts';
import { testCatalog } from '../support/catalog.ts';

const echoModel = testCatalog.require('prognoz/echo');

/** What one echo prediction holds while it runs, in roubles as GET /account shows it. */
const ONE_HOLD = holdFor(echoModel, Date.now()).kopecks / 100;

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

const freshKey = () => `test-${crypto.randomUUID()}`;

/** A create on the interface's route under an Idempotency-Key, sent as the draft writes it: a quoted string. */
const createUnder = <T = PredictionView>(key: string, token: string, body: unknown, options: CallOptions = {}) =>
  call<T>('prognoz/echo', {
    ...options,
    token,
    method: 'POST',
    body,
    headers: { 'idempotency-key': `"${key}"`, ...options.headers },
  });

const executionsStarted = async () => (await meterSnapshot(runtime().origin)).stepFunctions.executions;

const executionStatus = async (id: string) =>
  (await localStepFunctions().send(new DescribeExecutionCommand({ executionArn: await echoExecutionArn(id) }))).status;

describe('a create under an Idempotency-Key', () => {
  it('repeated with the same body gets the first prediction, with no second hold nor run, and waits on it with Prefer: wait', async () => {
    const token = await createOtherAccount();
    const key = freshKey();
    const executionsBefore = await executionsStarted();

    const first = await createUnder(key, token, { text: 'once', sleep: 3 });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await accountOf(token)).held).toBe(ONE_HOLD);

    const again = await createUnder(key, token, { text: 'once', sleep: 3 });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(again.json).toMatchObject({ id: first.json.id, input: first.json.input, created_at: first.json.created_at });
    expect(['starting', 'queued', 'processing']).toContain(again.json.status);
    expect((await accountOf(token)).held).toBe(ONE_HOLD);

    const waited = await createUnder(key, token, { text: 'once', sleep: 3 }, { headers: { prefer: 'wait' } });
    expect(waited.status).toBe(201);
    expect(waited.headers.get('idempotent-replayed')).toBe('true');
    expect(waited.json).toMatchObject({ id: first.json.id, status: 'succeeded', output: { text: 'once' } });

    await untilTerminal(first.json.id, undefined, { token });
    expect(await executionsStarted()).toBe(executionsBefore + 1);
    expect(await executionStatus(first.json.id)).toBe('SUCCEEDED');
    const account = await accountOf(token);
    expect(account.held).toBe(0);
    expect(account.spent_this_month).toBe(waited.json.cost);
  });

  it('sent ten times at once makes one prediction, one hold and one workflow execution', async () => {
    const token = await createOtherAccount();
    const key = freshKey();
    const executionsBefore = await executionsStarted();

    const responses = await Promise.all(
      Array.from({ length: 10 }, () => createUnder(key, token, { text: 'race', sleep: 2 })),
    );

    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(201));
    expect(new Set(responses.map((response) => response.json.id)).size).toBe(1);
    expect(responses.filter((response) => response.headers.get('idempotent-replayed') === 'true')).toHaveLength(9);
    expect((await accountOf(token)).held).toBe(ONE_HOLD);

    const id = responses[0]?.json.id ?? '';
    expect((await untilTerminal(id, undefined, { token })).status).toBe('succeeded');
    expect(await executionsStarted()).toBe(executionsBefore + 1);
    expect(await executionStatus(id)).toBe('SUCCEEDED');
    expect((await accountOf(token)).held).toBe(0);
  });

  it('reused with another body, Cancel-After or webhook is a 422 idempotency_key_reused that creates nothing', async () => {
    const token = await createOtherAccount();
    const key = freshKey();
    const first = await createUnder(key, token, { text: 'first', sleep: 2 });
    expect(first.status).toBe(201);
    const executionsBefore = await executionsStarted();

    const others: [unknown, CallOptions][] = [
      [{ text: 'second', sleep: 2 }, {}],
      [{ text: 'first', sleep: 2, repeat: 1 }, {}],
      [{ text: 'first', sleep: 2 }, { headers: { 'cancel-after': '1m' } }],
      [{ text: 'first', sleep: 2 }, { headers: { 'webhook-url': 'http://127.0.0.1:9/hook' } }],
    ];
    for (const [body, options] of others) {
      const reused = await createUnder<ErrorBody>(key, token, body, options);
      expect(reused.status, JSON.stringify([body, options])).toBe(422);
      expect(reused.json.error.code).toBe('idempotency_key_reused');
      expect(reused.json.error.message).toMatch(/another request within the last 24 hours/);
      expect(reused.headers.get('idempotent-replayed')).toBeNull();
    }

    expect((await accountOf(token)).held).toBe(ONE_HOLD);
    expect(await executionsStarted()).toBe(executionsBefore);
    await untilTerminal(first.json.id, undefined, { token });
    expect((await accountOf(token)).held).toBe(0);
  });

  it('matches a body whatever the order of its keys', async () => {
    const token = await createOtherAccount();
    const key = freshKey();
    const first = await createUnder(key, token, '{"text": "ordered", "repeat": 2, "sleep": 0}', {
      headers: { 'content-type': 'application/json' },
    });
    const again = await createUnder(key, token, '{"sleep": 0, "repeat": 2, "text": "ordered"}', {
      headers: { 'content-type': 'application/json' },
    });

    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.json.id).toBe(first.json.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('works on Replicate’s create route, where the same input under the same key is the same request', async () => {
    const token = await createOtherAccount();
    const key = freshKey();
    const replicate = (body: unknown) =>
      call<PredictionView>('models/prognoz/echo/predictions', {
        token,
        method: 'POST',
        body,
        headers: { 'idempotency-key': key },
      });

    const first = await replicate({ input: { text: 'replicate' } });
    const again = await replicate({ input: { text: 'replicate' } });
    const bySpecRoute = await createUnder(key, token, { text: 'replicate' });
    const other = await replicate({ input: { text: 'something else' } });

    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again).toMatchObject({ status: 201, json: { id: first.json.id } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(bySpecRoute).toMatchObject({ status: 201, json: { id: first.json.id } });
    expect(other.status).toBe(422);
    expect(other.json).toMatchObject({ error: { code: 'idempotency_key_reused' } });
    expect((await untilTerminal(first.json.id, undefined, { token })).status).toBe('succeeded');
  });

  it('is answered even when the first create’s hold took the last of the funds', async () => {
    const token = await createOtherAccount({ balanceKopecks: holdFor(echoModel, Date.now()).kopecks });
    const key = freshKey();

    const first = await createUnder(key, token, { text: 'the last kopeck', sleep: 1 });
    const again = await createUnder(key, token, { text: 'the last kopeck', sleep: 1 });
    const another = await call('prognoz/echo', { token, method: 'POST', body: { text: 'one more' } });

    expect(first.status).toBe(201);
    expect(again).toMatchObject({ status: 201, json: { id: first.json.id } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(another.status).toBe(402);
    await untilTerminal(first.json.id, undefined, { token });
  });

  it('belongs to its account: another account’s same key makes its own prediction', async () => {
    const [mine, theirs] = await Promise.all([createOtherAccount(), createOtherAccount()]);
    const key = freshKey();

    const first = await createUnder(key, mine, { text: 'shared key' });
    const other = await createUnder(key, theirs, { text: 'shared key' });

    expect(first.status).toBe(201);
    expect(other.status).toBe(201);
    expect(other.json.id).not.toBe(first.json.id);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    await Promise.all([
      untilTerminal(first.json.id, undefined, { token: mine }),
      untilTerminal(other.json.id, undefined, { token: theirs }),
    ]);
  });

  it('counts no more once its 24 hours are over, even while TTL has not yet deleted the record', async () => {
    const token = await createOtherAccount();
    const key = freshKey();
    const account = (await accountOf(token)).id;
    const { keyHash } = claimIdempotencyKey(key, 'ignored', Date.now());
    // What a create made under this key a day ago left behind.
    await localDynamo().send(
      new PutCommand({
        TableName: runtime().tableName,
        Item: {
          ...idempotencyKey(account, keyHash),
          type: 'idempotency',
          fingerprint: 'f'.repeat(64),
          prediction_id: crypto.randomUUID(),
          expires_at: Math.floor(Date.now() / 1000) - 60,
        },
      }),
    );

    const created = await createUnder(key, token, { text: 'a new day' });
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    const again = await createUnder(key, token, { text: 'a new day' });
    expect(again).toMatchObject({ status: 201, json: { id: created.json.id } });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await untilTerminal(created.json.id, undefined, { token });
  });

  it('that is malformed is a 400 invalid_header naming the header, and creates nothing', async () => {
    const token = await createOtherAccount();
    const executionsBefore = await executionsStarted();
    for (const bad of ['"unclosed', 'k'.repeat(256), '""']) {
      const response = await call<ErrorBody>('prognoz/echo', {
        token,
        method: 'POST',
        body: { text: 'bad key' },
        headers: { 'idempotency-key': bad },
      });
      expect(response.status, bad).toBe(400);
      expect(response.json.error.code).toBe('invalid_header');
      expect(response.json.error.message).toContain('Idempotency-Key');
    }
    expect((await accountOf(token)).held).toBe(0);
    expect(await executionsStarted()).toBe(executionsBefore);
  });

  it('survives a transaction conflict, which DynamoDB answers to two at once (DynamoDB Local never does): the insert is tried again', async () => {
    const owner = asAccountId((await accountOf(await createOtherAccount())).id);
    const client = localDynamo();
    const send = client.send.bind(client);
    let conflictsLeft = 2;
    // The one thing the emulator cannot produce: everything else is the real table.
    client.send = ((command: Parameters<typeof send>[0]) => {
      if (command instanceof TransactWriteCommand && conflictsLeft-- > 0) {
        return Promise.reject(
          new TransactionCanceledException({
            message:
              'Transaction cancelled, please refer cancellation reasons for specific reasons [None, None, None, TransactionConflict]',
            $metadata: {},
            CancellationReasons: [
              { Code: 'None' },
              { Code: 'None' },
              { Code: 'None' },
              { Code: 'TransactionConflict' },
            ],
          }),
        );
      }
      return send(command);
    }) as typeof client.send;
    const store = dynamoPredictionStore(runtime().tableName, client);
    const claim = claimIdempotencyKey(freshKey(), 'f'.repeat(64), Date.now());
    const prediction = () =>
      createPrediction({
        id: newPredictionId(),
        model: echoModel.id,
        owner,
        input: { kind: 'inline', value: { text: 'conflict' } },
        webhook: null,
        nowMs: Date.now(),
        hold: holdFor(echoModel, Date.now()),
        limits: phaseLimitsOf(echoModel),
      });

    const first = prediction();
    const inserted = await store.insert(first, null, claim);
    expect(conflictsLeft).toBe(-1);
    const repeated = await store.insert(prediction(), null, claim);

    expect(inserted).toEqual({ ok: true, value: { kind: 'inserted' } });
    expect(repeated).toEqual({
      ok: true,
      value: { kind: 'key_taken', prior: { predictionId: first.id, fingerprint: claim.fingerprint } },
    });
    expect(await store.get(first.id)).toMatchObject({ id: first.id, status: 'starting' });
  });
});
