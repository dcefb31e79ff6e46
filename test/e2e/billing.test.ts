import { describe, expect, it } from 'vitest';
import { dynamoPredictionStore } from '../../shared/adapters/prediction-store.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { finalizePrediction } from '../../shared/use-cases/finalize-prediction.ts';
import { sqsEndingTeller } from '../../shared/adapters/ending-notices.ts';
import { sqsWebhookNotifier } from '../../shared/adapters/webhook-notifier.ts';
import {
  call,
  createOtherAccount,
  createPrediction,
  localDynamo,
  localSqs,
  runtime,
  untilTerminal,
  webhookQueueUrl,
} from '../support/api.ts';
import { finalizeInput } from '../../shared/workflow/messages.ts';
import { testCatalog } from '../support/catalog.ts';

const echoModel = testCatalog.require('prognoz/echo');

interface Account {
  balance: number;
  spent_this_month: number;
  monthly_limit: number | null;
}

const HOLD = 0.3; // prognoz/echo holds 30 s × 0.01 ₽/s while a prediction is in flight
const account = async (token: string) => (await call<Account>('account', { token })).json;

describe('billing', () => {
  it('the hold of echo is what the rule below assumes', () => {
    expect(echoModel.holdSeconds * Number(echoModel.pricePerSecond)).toBeCloseTo(HOLD);
  });

  it('with 1.00 ₽, the fourth prediction in flight is refused (402, funds) and the balance never goes below zero', async () => {
    const token = await createOtherAccount({ balanceKopecks: 100 });
    const responses = [];
    for (let i = 0; i < 4; i++) responses.push(await createPrediction({ sleep: 1 }, { token }));

    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 402]);
    expect(responses[3]?.json).toMatchObject({ error: { code: 'insufficient_funds' } });
    const finished = await Promise.all(responses.slice(0, 3).map((r) => untilTerminal(r.json.id, 30_000, { token })));
    const charged = finished.reduce((sum, p) => sum + Math.round((p.cost ?? 0) * 100), 0);
    const after = await account(token);
    expect(Math.round(after.balance * 100)).toBe(100 - charged);
    expect(after.balance).toBeGreaterThanOrEqual(0);
    expect(Math.round(after.spent_this_month * 100)).toBe(charged);
    // The holds are released: the funds left start new predictions again.
    expect((await createPrediction({}, { token })).status).toBe(201);
  });

  it('with a monthly limit of 1.00 ₽, the fourth prediction in flight is refused (402, limit)', async () => {
    const token = await createOtherAccount({ balanceKopecks: 100_000, monthlyLimitKopecks: 100 });
    const statuses = [];
    let last;
    for (let i = 0; i < 4; i++) {
      last = await createPrediction({ sleep: 1 }, { token });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([201, 201, 201, 402]);
    expect(last?.json).toMatchObject({ error: { code: 'monthly_limit_reached' } });
  });

  it('200 concurrent creates against a limit that allows 10 start at most 10', async () => {
    const token = await createOtherAccount({ balanceKopecks: 100_000, monthlyLimitKopecks: 300, ratePerSecond: 1000 });
    const responses = await Promise.all(
      Array.from({ length: 200 }, () => createPrediction({ text: 'race' }, { token })),
    );
    const started = responses.filter((r) => r.status === 201);
    expect(started.length).toBeGreaterThanOrEqual(1);
    expect(responses.filter((r) => r.status === 402)).toHaveLength(200 - started.length);
    const ended = await Promise.all(started.map((r) => untilTerminal(r.json.id, 60_000, { token })));
    // An ended prediction gives its hold back (all but its cost), so one that ends mid-burst lets another
    // start: what the limit bounds is the holds at any one time, at most 10 (and the month's spend, below).
    const moments = ended.flatMap((p) => [
      { at: p.created_at, step: 1 },
      { at: p.completed_at ?? p.created_at, step: -1 },
    ]);
    moments.sort((a, b) => a.at.localeCompare(b.at) || a.step - b.step);
    let inFlight = 0;
    let most = 0;
    for (const { step } of moments) most = Math.max(most, (inFlight += step));
    expect(most).toBeLessThanOrEqual(10);
    const after = await account(token);
    expect(after.spent_this_month).toBeLessThanOrEqual(3);
  });

  it('a Finalize of a prediction its worker already ended changes nothing and charges nothing more', async () => {
    const token = await createOtherAccount({ balanceKopecks: 1_000 });
    const done = await createPrediction({ sleep: 0.5 }, { token, headers: { prefer: 'wait' } });
    expect(done.json.status).toBe('succeeded');
    const before = await account(token);

    const store = dynamoPredictionStore(runtime().tableName, localDynamo());
    const again = await finalizePrediction(
      {
        store,
        catalog: testCatalog,
        notifier: sqsWebhookNotifier(await webhookQueueUrl(), localSqs()),
        endingTeller: sqsEndingTeller(() => undefined, localSqs()),
        clock: systemClock,
      },
      finalizeInput.parse({ predictionId: done.json.id, error: { Error: 'States.Timeout', Cause: null } }),
    );

    expect(again).toEqual({ status: 'succeeded' });
    expect(await account(token)).toEqual(before);
  });
});
