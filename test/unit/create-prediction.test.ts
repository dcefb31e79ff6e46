import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asAccountId } from '../../shared/domain/ids.ts';
import { START_GRACE_MS } from '../../shared/domain/phases.ts';
import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { createPredictionUseCase, type CreateRequest } from '../../shared/use-cases/create-prediction.ts';
import { INPUT_INLINE_BYTES } from '../../shared/domain/prediction.ts';
import { inputObjectKey } from '../../shared/ports/input-store.ts';
import { inputOf } from '../../shared/use-cases/read-input.ts';
import { monthlyLimitsKept } from '../../shared/use-cases/monthly-limits.ts';
import { inMemoryService } from '../support/in-memory/service.ts';
import { testCatalog } from '../support/catalog.ts';

const echo = testCatalog.require('prognoz/echo');
/** What an echo prediction holds: 30 seconds at 0.01 ₽. */
const HOLD = 30;

const setUp = async (account: { balanceKopecks?: number; monthlyLimitKopecks?: number | null } = {}) => {
  const service = inMemoryService();
  const owner = asAccountId('acct-create');
  await service.accounts.createAccount(owner, service.clock.now(), { balanceKopecks: 100, ...account });
  const request: CreateRequest = { model: echo, owner, input: { text: 'hi' }, webhook: null };
  const arn = service.stateMachineArnOf(echo.id) ?? '';
  const held = async () => (await service.accounts.getAccount(owner, service.clock.now()))?.heldKopecks;
  const listed = async () => (await service.store.listOwned(owner, { toward: 'older', limit: 100 })).predictions;
  return {
    service,
    owner,
    request,
    arn,
    held,
    listed,
    create: (r: CreateRequest) => createPredictionUseCase(service, r),
  };
};

describe('creating a prediction', () => {
  it('records it with its hold and starts its workflow; it is not written again until a worker claims it', async () => {
    const { service, request, arn, held, create } = await setUp();
    const created = await create(request);
    if (!created.ok || created.value.kind !== 'created') throw new Error(`not created: ${JSON.stringify(created)}`);
    const { prediction, start } = created.value;
    expect(start).toEqual({ kind: 'running' });
    expect(prediction).toMatchObject({
      status: 'starting',
      input: { kind: 'inline', value: { text: 'hi', repeat: 1 } },
      hold: { kopecks: HOLD },
    });
    // Due for the sweeper only at its queue limit, counted from its creation.
    expect(await service.store.get(prediction.id)).toEqual(prediction);
    expect(prediction.sweepAtMs).toBe(service.clock.now() + phaseLimitsOf(echo).queueSeconds * 1000);
    expect(service.workflow.executions(arn).get(prediction.id)).toEqual({
      input: { predictionId: prediction.id },
      status: 'RUNNING',
    });
    expect(await held()).toBe(HOLD);
  });

  it('is refused when the funds cannot cover the hold, and nothing is made or started', async () => {
    const { service, request, arn, held, listed, create } = await setUp({ balanceKopecks: HOLD - 1 });
    const created = await create(request);
    expect(created.ok ? created.value : created.error.code).toBe('insufficient_funds');
    expect(await listed()).toEqual([]);
    expect(service.workflow.executions(arn).size).toBe(0);
    expect(await held()).toBe(0);
  });

  it("is refused past the month's limit", async () => {
    const { request, held, listed, create } = await setUp({ balanceKopecks: 1000, monthlyLimitKopecks: HOLD + 10 });
    expect((await create(request)).ok).toBe(true);
    const second = await create(request);
    expect(second.ok ? second.value : second.error.code).toBe('monthly_limit_reached');
    expect(await listed()).toHaveLength(1);
    expect(await held()).toBe(HOLD);
  });

  it('refuses an input its model does not take, holding nothing', async () => {
    const { request, held, create } = await setUp();
    const created = await create({ ...request, input: { repeat: 'many' } });
    expect(created.ok ? created.value : created.error.code).toBe('invalid_input');
    expect(await held()).toBe(0);
  });

  it('answers a repeat under the same Idempotency-Key with the first prediction, making nothing', async () => {
    const { service, request, arn, held, listed, create } = await setUp();
    const keyed = { ...request, idempotencyKey: 'order-42' };
    const first = await create(keyed);
    if (!first.ok || first.value.kind !== 'created') throw new Error('not created');
    service.clock.advance(5000);
    const repeat = await create(keyed);
    expect(repeat).toEqual({
      ok: true,
      value: { kind: 'replayed', prediction: await service.store.get(first.value.prediction.id) },
    });
    expect(await listed()).toHaveLength(1);
    expect(service.workflow.executions(arn).size).toBe(1);
    expect(await held()).toBe(HOLD);
    const other = await create({ ...keyed, input: { text: 'another' } });
    expect(other.ok ? other.value : other.error.code).toBe('idempotency_key_reused');
  });

  it('retries a throttled workflow start briefly, then runs it', async () => {
    const { service, request, create } = await setUp();
    const throttled = () => Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
    service.workflow.refuse(throttled(), throttled());
    const created = await create(request);
    expect(created.ok && created.value.kind === 'created' && created.value.start).toEqual({ kind: 'running' });
    expect(service.pauses).toHaveLength(2);
  });

  it('puts it off (pending), for the sweeper to start soon, when the workflow cannot be started now', async () => {
    const { service, request, held, create } = await setUp();
    service.workflow.refuse(Object.assign(new Error('no such machine'), { name: 'StateMachineDoesNotExist' }));
    const created = await create(request);
    if (!created.ok || created.value.kind !== 'created') throw new Error('not created');
    expect(created.value.start).toEqual({ kind: 'deferred', reason: 'StateMachineDoesNotExist: no such machine' });
    expect(service.pauses).toEqual([]);
    expect(created.value.prediction.status).toBe('starting');
    expect(await service.store.get(created.value.prediction.id)).toMatchObject({
      status: 'pending',
      sweepAtMs: service.clock.now() + START_GRACE_MS,
    });
    expect(await held()).toBe(HOLD);
  });

  it('keeps a large input in the bucket by reference, so that the prediction stays small', async () => {
    const { service, request, create } = await setUp();
    const text = 'x'.repeat(INPUT_INLINE_BYTES);
    const created = await create({ ...request, input: { text } });
    if (!created.ok || created.value.kind !== 'created') throw new Error(`not created: ${JSON.stringify(created)}`);
    const stored = await service.store.get(created.value.prediction.id);
    if (stored?.input.kind !== 'object') throw new Error(`the input is ${JSON.stringify(stored?.input)}`);
    expect(stored.input.bytes).toBeGreaterThan(INPUT_INLINE_BYTES);
    expect(await inputOf(stored, service.outputs)).toMatchObject({ text, repeat: 1 });
    // Just under the line, it stays in the prediction.
    const small = await create({ ...request, input: { text: 'x'.repeat(INPUT_INLINE_BYTES - 100) } });
    expect(small.ok && small.value.prediction.input.kind).toBe('inline');
  });

  it('leaves no stored input behind when it refuses the create', async () => {
    const { service, request } = await setUp({ balanceKopecks: 0 });
    const id = randomUUID();
    const refused = await createPredictionUseCase(
      { ...service, ids: () => id },
      { ...request, input: { text: 'x'.repeat(10_000) } },
    );
    expect(refused.ok ? refused.value : refused.error.code).toBe('insufficient_funds');
    await expect(service.outputs.get(inputObjectKey(id))).rejects.toThrow(/no output/);
  });
});

describe("a create reckons with the account's monthly limit as this process last read it", () => {
  /** The service with its limits kept over a store that counts the reads of the account. */
  const counted = async (account: { monthlyLimitKopecks?: number | null } = {}) => {
    const base = await setUp({ balanceKopecks: 1000, ...account });
    let reads = 0;
    const monthlyLimits = monthlyLimitsKept({
      monthlyLimitOf: (id) => {
        reads++;
        return base.service.accounts.monthlyLimitOf(id);
      },
    });
    const create = (r: CreateRequest = base.request) => createPredictionUseCase({ ...base.service, monthlyLimits }, r);
    const code = async () => {
      const created = await create();
      return created.ok ? created.value.kind : created.error.code;
    };
    return { ...base, create, code, reads: () => reads };
  };

  it('reads the account once for many creates', async () => {
    const { code, reads, held } = await counted();
    for (let i = 0; i < 5; i++) expect(await code()).toBe('created');
    expect(reads()).toBe(1);
    expect(await held()).toBe(5 * HOLD);
  });

  it('keeps to a limit set or lowered since, at once', async () => {
    const { service, owner, code, reads, held } = await counted();
    expect(await code()).toBe('created');
    await service.accounts.setMonthlyLimit(owner, HOLD + 10);
    expect(await code()).toBe('monthly_limit_reached');
    expect(reads()).toBe(2);
    expect(await held()).toBe(HOLD);
  });

  it('takes a limit raised since at once, though the one it knew refused', async () => {
    const { service, owner, code, reads, held } = await counted({ monthlyLimitKopecks: HOLD + 10 });
    expect(await code()).toBe('created');
    expect(await code()).toBe('monthly_limit_reached');
    await service.accounts.setMonthlyLimit(owner, 10 * HOLD);
    expect(await code()).toBe('created');
    // Each refusal by the limit it knew is checked against the account as it is now.
    expect(reads()).toBe(3);
    expect(await held()).toBe(2 * HOLD);
  });

  it('refuses the token of an account gone since, keeping no input', async () => {
    const { service, request } = await setUp();
    const id = randomUUID();
    let reads = 0;
    // Known once, gone at the next read: the account the store finds nothing of.
    const monthlyLimits = monthlyLimitsKept({
      monthlyLimitOf: () => Promise.resolve(reads++ === 0 ? { monthlyLimitKopecks: null } : null),
    });
    const refused = await createPredictionUseCase(
      { ...service, monthlyLimits, ids: () => id },
      { ...request, owner: asAccountId('acct-gone'), input: { text: 'x'.repeat(10_000) } },
    );
    expect(refused.ok ? refused.value : refused.error.code).toBe('invalid_token');
    expect(reads).toBe(2);
    await expect(service.outputs.get(inputObjectKey(id))).rejects.toThrow(/no output/);
  });
});
