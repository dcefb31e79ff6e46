import { GetExecutionHistoryCommand, DescribeExecutionCommand } from '@aws-sdk/client-sfn';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ENDINGS, OUTPUT_LIMITS } from '../../shared/domain/endings.ts';
import {
  accountOf,
  cancelPrediction,
  createOtherAccount,
  createPrediction,
  echoExecutionArn,
  getPrediction,
  localStepFunctions,
  pollUntil,
  untilTerminal,
} from '../support/api.ts';
import { receiverForFile } from '../support/receiver.ts';

/** 100,000 × 字 is 300,000 bytes of UTF-8: the largest text the echo model takes. */
const CHARACTER = '字';
const LONGEST_TEXT = CHARACTER.repeat(100_000);

const receiver = receiverForFile();

describe('outputs never ride in the workflow', () => {
  it('an output of 5 MB comes back whole from a synchronous create, from GET and in the webhook body', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const repeat = 17; // 5.1 MB of output
    const created = await createPrediction(
      { text: LONGEST_TEXT, repeat, webhook: `${receiver().url}/large` },
      { token, headers: { prefer: 'wait=60' } },
    );

    expect(created.json.status).toBe('succeeded');
    const expected = LONGEST_TEXT.repeat(repeat);
    expect(Buffer.byteLength(JSON.stringify(created.json.output))).toBeGreaterThanOrEqual(5_000_000);
    expect(created.json.output).toEqual({ text: expected, file: null });
    expect((await getPrediction(created.json.id, { token })).json.output).toEqual({ text: expected, file: null });
    await pollUntil(created.json.id, () => receiver().accepted(created.json.id).length > 0, 20_000, { token });
    const delivered = JSON.parse(receiver().accepted(created.json.id)[0]?.body ?? '{}') as {
      output?: { text?: string };
    };
    expect(delivered.output?.text === expected).toBe(true);
    expect((await accountOf(token)).held).toBe(0);
  });

  it('an output over the largest supported size ends the prediction failed, saying so, with its hold released', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const created = await createPrediction(
      { text: LONGEST_TEXT, repeat: 20 },
      { token, headers: { prefer: 'wait=60' } },
    );
    const bytes = Buffer.byteLength(JSON.stringify({ text: LONGEST_TEXT.repeat(20), file: null }));
    expect(bytes).toBeGreaterThan(OUTPUT_LIMITS.maxBytes);
    expect(created.json).toMatchObject({
      status: 'failed',
      output: null,
      error: ENDINGS.outputTooLarge(bytes, OUTPUT_LIMITS.maxBytes),
    });
    expect(created.json.cost).toBeGreaterThan(0);
    expect((await accountOf(token)).held).toBe(0);
  });

  it("no input or output value appears in any execution's input, output or history", async () => {
    const canary = `canary-${randomUUID()}`;
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const ids: string[] = [];
    // Small, failed, and large (stored in the outputs bucket) outputs.
    for (const input of [
      { text: canary },
      { text: canary, fail: true },
      { text: `${canary} `.repeat(2000), repeat: 2 },
    ]) {
      const done = await createPrediction(input, { token, headers: { prefer: 'wait' } });
      expect(['succeeded', 'failed']).toContain(done.json.status);
      ids.push(done.json.id);
    }
    const canceled = await createPrediction({ text: canary, sleep: 30 }, { token });
    await pollUntil(canceled.json.id, (p) => p.status === 'processing', 20_000, { token });
    await cancelPrediction(canceled.json.id, { token });
    await untilTerminal(canceled.json.id, 10_000, { token });
    ids.push(canceled.json.id);

    const sfn = localStepFunctions();
    for (const id of ids) {
      const executionArn = await echoExecutionArn(id);
      const described = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      const history = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
      expect(history.events?.length).toBeGreaterThan(2);
      const text = JSON.stringify({ described, history });
      expect(text).toContain(id);
      expect(text).not.toContain(canary);
    }
  });
});
