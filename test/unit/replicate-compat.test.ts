import { phaseLimitsOf } from '../../shared/catalog/registry.ts';
import { describe, expect, it } from 'vitest';
import { applier } from '../support/transitions.ts';
import { eventsSince, formatEvent, streamStart } from '../../shared/api/prediction-events.ts';
import { asReplicateClientsSeeIt, REPLICATE_CLIENT_AGENT, toPredictionView } from '../../shared/api/prediction-view.ts';
import { parseTimestamp } from '../../shared/domain/clock.ts';
import { sameSecret } from '../../shared/domain/constant-time.ts';
import { parseCancelAfter } from '../../shared/domain/deadline.ts';
import { asAccountId, newPredictionId } from '../../shared/domain/ids.ts';
import { type PhaseLimits, type Prediction } from '../../shared/domain/prediction.ts';
import { createPrediction, transition } from '../../shared/domain/transition.ts';
import { sweepDeadline } from '../../shared/domain/phases.ts';
import { roublesToMicro } from '../../shared/domain/pricing.ts';
import { MODEL_METRICS_KEPT_BYTES } from '../../shared/domain/run-report.ts';
import { freshWatch, stepRun } from '../../shared/use-cases/run/run-events.ts';
import { testCatalog } from '../support/catalog.ts';

const limits: PhaseLimits = { queueSeconds: 3600, runSeconds: 900, leaseSeconds: 4, maxAttempts: 2 };
const policy = { pricePerSecondMicro: roublesToMicro('0.01'), limits };
const T0 = Date.UTC(2026, 10, 23, 12, 0, 0, 0);

const fresh = (
  options: { cancelAfterSeconds?: number; webhookEvents?: Prediction['webhookEvents'] } = {},
): Prediction =>
  createPrediction({
    id: newPredictionId(() => '11111111-2222-4333-8444-555555555555'),
    model: 'prognoz/echo',
    owner: asAccountId('acct'),
    input: { kind: 'inline', value: { text: 'hi' } },
    webhook: 'https://example.com/hook',
    webhookEvents: options.webhookEvents ?? null,
    apiBase: 'https://api.example.com/prod/api/v1',
    streamKey: 'key-1',
    cancelAfterSeconds: options.cancelAfterSeconds ?? null,
    nowMs: T0,
    hold: { kopecks: 30, month: '2026-11' },
    limits: phaseLimitsOf(testCatalog.require('prognoz/echo')),
  });

const apply = applier(policy);

const running = (prediction: Prediction) =>
  apply(prediction, { type: 'queued', atMs: T0 + 10 }, { type: 'claimed', atMs: T0 + 20, claim: 'c1' });

describe('Cancel-After', () => {
  it('reads units and plain seconds, and refuses what is malformed or under 5 s', () => {
    expect(parseCancelAfter('30s')).toBe(30);
    expect(parseCancelAfter('5m')).toBe(300);
    expect(parseCancelAfter('1h30m')).toBe(5400);
    expect(parseCancelAfter('1h0m5s')).toBe(3605);
    expect(parseCancelAfter(' 90 ')).toBe(90);
    for (const bad of ['4s', '4', '', 'm', '5 m', '-5', '1d', '30s5m', '8d', '700000'])
      expect(() => parseCancelAfter(bad), bad).toThrow(/Cancel-After/);
  });

  it('sets the deadline from creation; the sweeper looks then, or a lease later for a running prediction (its worker stops it first)', () => {
    expect(fresh({ cancelAfterSeconds: 5 }).sweepAtMs).toBe(T0 + 5000);
    expect(fresh({ cancelAfterSeconds: 60 }).sweepAtMs).toBe(T0 + 60_000);
    expect(fresh({ cancelAfterSeconds: 7200 }).sweepAtMs).toBe(T0 + 3600_000);
    const waiting = apply(fresh({ cancelAfterSeconds: 30 }), { type: 'queued', atMs: T0 + 10 });
    expect(waiting.deadlineAt).not.toBeNull();
    expect(parseTimestamp(waiting.deadlineAt ?? '')).toBe(T0 + 30_000);
    expect(sweepDeadline(waiting, limits)).toBe(T0 + 30_000);
    const run = running(fresh({ cancelAfterSeconds: 30 }));
    expect(sweepDeadline(run, limits)).toBe(T0 + 30_000 + 4000);
    expect(sweepDeadline(running(fresh()), limits)).toBe(T0 + 20 + (900 + 4 + 3600) * 1000);
  });

  it('a deadline cancel keeps its reason and bills the time run; only the current claim may report it', () => {
    const run = running(fresh({ cancelAfterSeconds: 30 }));
    const error = 'the deadline passed';
    const stale = transition(
      run,
      { type: 'canceled', atMs: T0 + 30_000, by: 'worker', claim: 'old', runtimeMs: 29_000, error },
      policy,
    );
    expect(stale.ok).toBe(false);
    const ended = apply(run, {
      type: 'canceled',
      atMs: T0 + 30_000,
      by: 'worker',
      claim: 'c1',
      runtimeMs: 29_500,
      error,
      logs: 'a\nb',
      predictTimeMs: 29_400,
    });
    expect(ended).toMatchObject({
      status: 'canceled',
      error,
      runtimeMs: 29_500,
      costKopecks: 30,
      logs: 'a\nb',
      predictTimeMs: 29_400,
    });
    expect(apply(running(fresh()), { type: 'canceled', atMs: T0 + 5000, by: 'api' })).toMatchObject({
      status: 'canceled',
      error: null,
    });
  });
});

describe('webhook events of a run', () => {
  const state = (logs: string, streamed: string[], progress: number | null = null) => ({ logs, streamed, progress });

  it('sends only the events asked for, output and logs at most every 500 ms, and holds back nothing for good', () => {
    const asked = fresh({ webhookEvents: ['output', 'logs'] });
    let step = stepRun(asked, freshWatch(), state('a', ['x']), 1000);
    expect(step.events).toEqual(['output', 'logs']);
    expect(step.update).toEqual({ logs: 'a', streamed: ['x'] });
    step = stepRun(asked, step.watch, state('a\nb', ['x', 'y']), 1200);
    expect(step.events).toEqual([]);
    expect(step.update).toEqual({ logs: 'a\nb', streamed: ['x', 'y'] });
    // Nothing new, but what was held back goes out once the interval has passed.
    step = stepRun(asked, step.watch, state('a\nb', ['x', 'y']), 1500);
    expect([...step.events].sort()).toEqual(['logs', 'output']);
    expect(step.update).toEqual({});
    step = stepRun(asked, step.watch, state('a\nb', ['x', 'y']), 2500);
    expect(step.events).toEqual([]);
  });

  it('without a filter no run event is sent, and progress is recorded in steps', () => {
    let step = stepRun(fresh(), freshWatch(), state('', [], 0.01), 0);
    expect(step).toMatchObject({ events: [], update: {} });
    step = stepRun(fresh(), step.watch, state('log', ['p'], 0.5), 1000);
    expect(step.events).toEqual([]);
    expect(step.update).toEqual({ progress: 0.5, logs: 'log', streamed: ['p'] });
  });
});

describe('the event stream', () => {
  it('sends new log lines and output pieces as they come, then the rest and done', () => {
    const run = running(fresh());
    const mid = { ...run, logs: 'first\nsecond', streamed: ['one ', 'two '] } as Prediction;
    const first = eventsSince(mid, streamStart());
    expect(first.events).toEqual([
      { event: 'logs', data: 'first' },
      { event: 'logs', data: 'second' },
      { event: 'output', data: 'one ' },
      { event: 'output', data: 'two ' },
    ]);
    expect(first.done).toBe(false);
    const ended = apply(run, {
      type: 'succeeded',
      atMs: T0 + 900,
      claim: 'c1',
      runtimeMs: 880,
      output: { kind: 'inline', value: { text: 'one two three' } },
      logs: 'first\nsecond\nthird',
      streamed: ['one ', 'two ', 'three'],
    });
    const last = eventsSince(ended, first.position, { text: 'one two three' });
    expect(last.events).toEqual([
      { event: 'logs', data: 'third' },
      { event: 'output', data: 'three' },
      { event: 'done', data: '{}' },
    ]);
    expect(last.done).toBe(true);
  });

  it('a model that streamed nothing sends its whole output; a failure sends error and done', () => {
    const run = running(fresh());
    const ended = apply(run, {
      type: 'succeeded',
      atMs: T0 + 900,
      claim: 'c1',
      runtimeMs: 880,
      output: { kind: 'inline', value: { text: 'all' } },
      streamed: [],
    });
    expect(eventsSince(ended, streamStart(), { text: 'all' }).events).toEqual([
      { event: 'output', data: '{"text":"all"}' },
      { event: 'done', data: '{}' },
    ]);
    const failed = apply(run, {
      type: 'failed',
      atMs: T0 + 900,
      claim: 'c1',
      runtimeMs: 880,
      error: 'broke',
      by: 'worker',
    });
    expect(eventsSince(failed, streamStart()).events).toEqual([
      { event: 'error', data: 'broke' },
      { event: 'done', data: '{"reason":"error"}' },
    ]);
    expect(formatEvent({ event: 'output', data: 'a\nb' }, 7)).toBe('event: output\nid: 7\ndata: a\ndata: b\n\n');
  });
});

describe("the model's own metrics (Cog's record_metric)", () => {
  const ended = apply(running(fresh()), {
    type: 'succeeded',
    atMs: T0 + 900,
    claim: 'c1',
    runtimeMs: 880,
    output: { kind: 'inline', value: { text: 'done' } },
    predictTimeMs: 750,
    modelMetrics: { token_count: 10, timing: { preprocess: 0.12 }, tags: ['fast'], flag: true },
  });

  it("are shown beside predict_time, their JSON types kept, dotted names nested as the model's server nested them", () => {
    expect(toPredictionView(ended, { includeCost: true, catalog: testCatalog }).metrics).toEqual({
      token_count: 10,
      timing: { preprocess: 0.12 },
      tags: ['fast'],
      flag: true,
      predict_time: 0.75,
      total_time: 0.9,
    });
  });

  it("ride on the event stream's done, as on Cog's completed event", () => {
    expect(eventsSince(ended, streamStart(), { text: 'done' }).events.at(-1)).toEqual({
      event: 'done',
      data: JSON.stringify({ metrics: { token_count: 10, timing: { preprocess: 0.12 }, tags: ['fast'], flag: true } }),
    });
  });

  it("are not kept past their limit: they are the model's, the prediction must stay small", () => {
    const huge = apply(running(fresh()), {
      type: 'failed',
      atMs: T0 + 900,
      claim: 'c1',
      runtimeMs: 880,
      error: 'broke',
      by: 'worker',
      modelMetrics: { notes: 'x'.repeat(MODEL_METRICS_KEPT_BYTES) },
    });
    expect(huge.status === 'failed' ? huge.modelMetrics : undefined).toBeNull();
  });
});

describe('the prediction as Replicate clients read it', () => {
  it('carries urls, version, logs and metrics; a queued prediction reads as starting to Replicate clients only', () => {
    const queued = apply(fresh({ cancelAfterSeconds: 60 }), { type: 'queued', atMs: T0 + 10 });
    const view = toPredictionView(queued, { includeCost: true, catalog: testCatalog });
    expect(view).toMatchObject({
      status: 'queued',
      version: 'prognoz/echo',
      logs: '',
      metrics: {},
      data_removed: false,
      urls: {
        get: `https://api.example.com/prod/api/v1/predictions/${queued.id}`,
        cancel: `https://api.example.com/prod/api/v1/predictions/${queued.id}/cancel`,
        stream: `https://api.example.com/prod/api/v1/predictions/${queued.id}/stream?key=key-1`,
      },
    });
    expect(view.deadline).toBe(queued.deadlineAt);
    expect(asReplicateClientsSeeIt(view).status).toBe('starting');
    expect(asReplicateClientsSeeIt({ ...view, status: 'processing' }).status).toBe('processing');
    expect(REPLICATE_CLIENT_AGENT.test('replicate-python/1.0.7')).toBe(true);
    expect(REPLICATE_CLIENT_AGENT.test('replicate-javascript/1.4.0')).toBe(true);
    expect(REPLICATE_CLIENT_AGENT.test('curl/8.0')).toBe(false);
  });
});

describe('comparing secrets', () => {
  it('is true only for the same bytes, and never throws on strings of one length but other bytes', () => {
    const key = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
    expect(sameSecret(key, key)).toBe(true);
    expect(sameSecret(key.replace('0f', '0e'), key)).toBe(false);
    expect(sameSecret('я'.repeat(key.length), key)).toBe(false);
    expect(sameSecret('', key)).toBe(false);
  });
});

describe('secret inputs', () => {
  it("stay hidden in a prediction of a model this run withholds, as in one it offers: the catalog still knows the model's secrets", () => {
    const withheld = { ...testCatalog.require('prognoz/echo'), secrets: ['text'] };
    const catalog = { ...testCatalog, find: () => undefined, catalogModel: () => withheld };
    const shown = toPredictionView(fresh(), { includeCost: true, catalog }).input;
    expect(shown).toHaveProperty('text');
    expect(JSON.stringify(shown)).not.toContain('"hi"');
  });
});
