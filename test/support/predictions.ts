import { asAccountId, newPredictionId, type AccountId } from '../../shared/domain/ids.ts';
import { monthOf } from '../../shared/domain/money.ts';
import type { Prediction, TerminalPrediction } from '../../shared/domain/prediction.ts';
import { createPrediction, type PredictionEvent } from '../../shared/domain/transition.ts';
import { phaseLimitsOf, policyOf } from '../../shared/catalog/registry.ts';
import { testCatalog } from './catalog.ts';
import { applier } from './transitions.ts';

/** The demo model: 0.01 ₽ a second, so a run's cost in kopecks is its whole seconds. */
export const MODEL = 'prognoz/echo';

let owners = 0;
/** An account id no other test uses. */
export const freshOwner = (): AccountId => asAccountId(`contract-${process.pid}-${++owners}`);

/** A prediction id that starts with `shard` (a hex digit): ids alike there share a shard of the sweeper's index. */
export const idInShard = (shard: string, n: number) =>
  newPredictionId(() => `${shard}${String(n).padStart(7, '0')}-0000-4000-8000-000000000000`);

export interface NewSpec {
  readonly owner: AccountId;
  readonly nowMs: number;
  readonly holdKopecks?: number;
  readonly id?: ReturnType<typeof newPredictionId>;
  readonly webhook?: string | null;
  readonly model?: string;
  /** `Cancel-After`, seconds from its creation. */
  readonly cancelAfterSeconds?: number;
}

/** A new `starting` prediction of `MODEL`, holding `holdKopecks` (30 by default). */
export const startingPrediction = (spec: NewSpec): Prediction =>
  createPrediction({
    id: spec.id ?? newPredictionId(),
    model: spec.model ?? MODEL,
    owner: spec.owner,
    input: { kind: 'inline', value: { text: 'contract' } },
    webhook: spec.webhook ?? null,
    nowMs: spec.nowMs,
    hold: { kopecks: spec.holdKopecks ?? 30, month: monthOf(spec.nowMs) },
    limits: phaseLimitsOf(testCatalog.require(spec.model ?? MODEL)),
    cancelAfterSeconds: spec.cancelAfterSeconds ?? null,
  });

/** The prediction after `events`, in order, under its model's policy; a refused event throws. */
export const moved = (prediction: Prediction, ...events: PredictionEvent[]): Prediction =>
  applier(policyOf(testCatalog.require(prediction.model)))(prediction, ...events);

/** Queued at `atMs`, then claimed under `claim` a second later. */
export const processing = (prediction: Prediction, atMs: number, claim = 'claim-1'): Prediction =>
  moved(prediction, { type: 'queued', atMs }, { type: 'claimed', atMs: atMs + 1000, claim });

/** A processing prediction's success after `runtimeMs` of model time, with an inline output. */
export const succeeded = (running: Prediction, atMs: number, runtimeMs = 5000): TerminalPrediction => {
  if (running.status !== 'processing') throw new Error(`a ${running.status} prediction cannot succeed`);
  const ended = moved(running, {
    type: 'succeeded',
    atMs,
    claim: running.claim,
    output: { kind: 'inline', value: 'done' },
    runtimeMs,
    logs: 'ran',
  });
  if (ended.status !== 'succeeded') throw new Error('a success did not end it');
  return ended;
};

/** A failure reported by the workflow (nothing left to stop; with no webhook, nothing owed). */
export const failedByWorkflow = (prediction: Prediction, atMs: number): TerminalPrediction => {
  const ended = moved(prediction, { type: 'failed', atMs, error: 'broke', runtimeMs: null, by: 'workflow' });
  if (ended.status !== 'failed') throw new Error('a failure did not end it');
  return ended;
};
