import { PrognozError } from '../domain/errors.ts';
import type { PredictionId } from '../domain/ids.ts';
import { type Prediction } from '../domain/prediction.ts';
import { transition, type PredictionEvent } from '../domain/transition.ts';
import { err, ok, type Result } from '../domain/result.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';

export interface Applied {
  readonly before: Prediction;
  readonly after: Prediction;
  /** False when the event left the prediction as it was (e.g. cancel of a canceled one). */
  readonly changed: boolean;
}

/** What applying an event needs: the store, and the catalog whose policies the predictions move on by. */
export interface EventDeps {
  readonly store: PredictionStore;
  readonly catalog: Pick<ModelCatalog, 'policyOfStored'>;
}

const MAX_CONFLICTS = 5;

/**
 * Applies one event with optimistic concurrency: read, run the pure transition, write only if the
 * prediction is still as it was read. A concurrent writer makes us re-read and decide again, so a
 * cancel racing a finish ends in exactly one terminal status. A caller that has just read the
 * prediction passes it as `known`: the first try starts from it instead of reading again (the
 * write's condition still holds it to what is stored).
 */
export const applyEvent = async (
  { store, catalog }: EventDeps,
  id: PredictionId,
  event: PredictionEvent,
  known?: Prediction,
): Promise<Result<Applied, PrognozError>> => {
  for (let attempt = 0; attempt < MAX_CONFLICTS; attempt++) {
    const before = attempt === 0 && known !== undefined ? known : await store.get(id);
    if (!before) return err(new PrognozError('prediction_not_found', `prediction ${id} does not exist`));
    const next = transition(before, event, catalog.policyOfStored(before.model));
    if (!next.ok) return err(next.error);
    if (next.value === before) return ok({ before, after: before, changed: false });
    if (await store.replace(next.value, before)) return ok({ before, after: next.value, changed: true });
  }
  throw new Error(`prediction ${id}: gave up after ${MAX_CONFLICTS} concurrent updates`);
};
