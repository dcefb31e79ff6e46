import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { localJson, meterSnapshot } from '../../bench/local-endpoints.ts';
import { createPrediction, getPrediction, runtime } from '../support/api.ts';

const meter = () => meterSnapshot(runtime().origin);
const definitions = () =>
  localJson<{ machines: { model: string; definition: { States: Record<string, unknown> } }[] }>(
    runtime().origin,
    'definitions',
  );

describe('the local runtime’s call meter (the cost model of npm run bench reads it)', () => {
  it('counts what one prediction asks of API Gateway, Lambda, Step Functions, DynamoDB and SQS', async () => {
    const before = await meter();
    const created = await createPrediction({ text: 'metered' }, { headers: { prefer: 'wait' } });
    expect(created.json.status).toBe('succeeded');
    // The worker deletes its message once it has reported: wait for that last call.
    let after = await meter();
    for (let i = 0; i < 100 && (after.sqs.DeleteMessage ?? 0) === (before.sqs.DeleteMessage ?? 0); i++) {
      await sleep(50);
      after = await meter();
    }

    expect(after.api['POST /api/v1/{company}/{model}']).toBe((before.api['POST /api/v1/{company}/{model}'] ?? 0) + 1);
    expect(after.stepFunctions.executions - before.stepFunctions.executions).toBe(1);
    const echo = (await definitions()).machines.find((machine) => machine.model === 'prognoz/echo');
    // A succeeded prediction is one state transition: Dispatch. Finalize runs only when Dispatch fails.
    const transitions = after.stepFunctions.transitions - before.stepFunctions.transitions;
    expect(transitions).toBe(1);
    expect(Object.keys(echo?.definition.States ?? {})).toContain('Dispatch');
    expect(after.lambda['functions/workflow/finalize.ts']?.invocations ?? 0).toBe(
      before.lambda['functions/workflow/finalize.ts']?.invocations ?? 0,
    );
    expect(after.stepFunctions.api.SendTaskSuccess).toBe((before.stepFunctions.api.SendTaskSuccess ?? 0) + 1);
    expect(after.lambda['functions/http/create-prediction.ts']?.totalMs).toBeGreaterThan(
      before.lambda['functions/http/create-prediction.ts']?.totalMs ?? 0,
    );
    // The hold at create and the charge at the end: two transactions of two items at least.
    const transactions =
      (after.dynamodb.TransactWriteItems?.calls ?? 0) - (before.dynamodb.TransactWriteItems?.calls ?? 0);
    const transactionUnits =
      (after.dynamodb.TransactWriteItems?.writeUnits ?? 0) - (before.dynamodb.TransactWriteItems?.writeUnits ?? 0);
    expect(transactions).toBeGreaterThanOrEqual(2);
    expect(transactionUnits).toBeGreaterThanOrEqual(8);
    // The worker's claim is one update of the prediction, which returns it; a read is metered in read units.
    const calls = (snapshot: typeof after, call: string) => snapshot.dynamodbByItem[call]?.calls ?? 0;
    expect(calls(after, 'UpdateItem PREDICTION') - calls(before, 'UpdateItem PREDICTION')).toBeGreaterThanOrEqual(1);
    expect((await getPrediction(created.json.id)).status).toBe(200);
    const read = await meter();
    expect((read.dynamodb.GetItem?.readUnits ?? 0) - (after.dynamodb.GetItem?.readUnits ?? 0)).toBeGreaterThan(0);
    expect((after.sqs.SendMessage ?? 0) - (before.sqs.SendMessage ?? 0)).toBeGreaterThanOrEqual(1);
    expect((after.sqs.ReceiveMessage ?? 0) - (before.sqs.ReceiveMessage ?? 0)).toBeGreaterThanOrEqual(1);
  });
});
