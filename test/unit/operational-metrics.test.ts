import { afterEach, describe, expect, it, vi } from 'vitest';
import { countingEnds } from '../../shared/adapters/ending-wiring.ts';
import { lostWorkerCounter, powertoolsCounter } from '../../shared/adapters/powertools-metrics.ts';
import {
  METRICS_NAMESPACE,
  PREDICTIONS_ENDED,
  WEBHOOK_ATTEMPTS,
  WORKERS_LOST,
  type CountMetric,
} from '../../shared/metrics.ts';
import { applyEvent } from '../../shared/use-cases/apply-event.ts';
import { endPrediction, stoppingExecutions } from '../../shared/use-cases/end-prediction.ts';
import { createEchoPrediction } from '../support/in-memory/echo-prediction.ts';
import { inMemoryService } from '../support/in-memory/service.ts';

const counting = () => {
  const counts: { readonly metric: string; readonly dimensions: Record<string, string> }[] = [];
  const count: CountMetric = (metric, dimensions) => {
    counts.push({ metric: metric.name, dimensions: { ...dimensions } });
  };
  return { counts, count };
};

describe('the store of the ending wiring', () => {
  it('counts each ending once, by model and status, where it is written: no claim, no repeat, no refused end', async () => {
    const { counts, count } = counting();
    const plain = inMemoryService();
    const service = { ...plain, store: countingEnds(plain.store, count) };
    const { id } = await createEchoPrediction(service, { balanceKopecks: 100 });
    const claimed = await applyEvent(service, id, { type: 'claimed', atMs: service.clock.now(), claim: 'c1' });
    expect(claimed.ok).toBe(true);
    expect(counts).toEqual([]);

    const deps = stoppingExecutions(service, 'canceled by its owner');
    const cancel = { type: 'canceled', atMs: service.clock.now(), by: 'api' } as const;
    expect((await endPrediction(deps, id, cancel)).ok).toBe(true);
    // A retried cancel, and a later failure, find it ended: neither is an ending.
    expect((await endPrediction(deps, id, cancel)).ok).toBe(true);
    const failed = {
      type: 'failed',
      atMs: service.clock.now(),
      error: 'late',
      runtimeMs: null,
      by: 'sweeper',
    } as const;
    expect((await endPrediction(deps, id, failed)).ok).toBe(false);

    const model = (await service.store.get(id))?.model;
    expect(counts).toEqual([{ metric: PREDICTIONS_ENDED.name, dimensions: { Model: model, Status: 'canceled' } }]);
  });
});

describe('the Powertools counter', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  /** What `run` prints on stdout, where Powertools writes its EMF lines. */
  const printed = (run: () => void): unknown[] => {
    const lines: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      run();
    } finally {
      write.mockRestore();
    }
    return lines.map((line) => JSON.parse(line) as unknown);
  };

  const emf = (name: string, dimensions: Record<string, string>) => ({
    _aws: {
      Timestamp: expect.any(Number) as unknown,
      CloudWatchMetrics: [
        {
          Namespace: METRICS_NAMESPACE,
          Dimensions: [Object.keys(dimensions)],
          Metrics: [{ Name: name, Unit: 'Count' }],
        },
      ],
    },
    ...dimensions,
    [name]: 1,
  });

  it('prints one EMF line per count, at once, with exactly its metric’s dimensions (no `service`)', () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'prognoz-test');
    const report = vi.fn();
    const count = powertoolsCounter(report);
    const countLost = lostWorkerCounter('acme/echo', report);
    const lines = printed(() => {
      count(PREDICTIONS_ENDED, { Model: 'acme/echo', Status: 'failed' });
      count(WEBHOOK_ATTEMPTS, { Outcome: 'dead_lettered' });
      countLost();
    });
    expect(lines).toEqual([
      emf(PREDICTIONS_ENDED.name, { Model: 'acme/echo', Status: 'failed' }),
      emf(WEBHOOK_ATTEMPTS.name, { Outcome: 'dead_lettered' }),
      emf(WORKERS_LOST.name, { Model: 'acme/echo' }),
    ]);
    expect(report).not.toHaveBeenCalled();
  });

  it('prints nothing where POWERTOOLS_METRICS_DISABLED is set (the local runtime), even when set after it was made', () => {
    const count = powertoolsCounter(vi.fn());
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    expect(printed(() => count(WEBHOOK_ATTEMPTS, { Outcome: 'delivered' }))).toEqual([]);
  });
});
