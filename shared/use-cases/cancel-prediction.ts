import type { PredictionStore } from '../adapters/prediction-store.ts';
import type { WebhookNotifier } from '../adapters/webhook-queue.ts';
import type { WorkflowClient } from '../adapters/workflow-client.ts';
import type { Clock } from '../domain/clock.ts';
import type { PrognozError } from '../domain/errors.ts';
import type { PredictionId } from '../domain/ids.ts';
import type { Prediction } from '../domain/prediction.ts';
import { err, ok, type Result } from '../domain/result.ts';
import { applyEvent } from './apply-event.ts';

export interface CancelDeps {
  readonly store: PredictionStore;
  readonly workflow: WorkflowClient;
  readonly stateMachineArnOf: (model: string) => string | undefined;
  readonly clock: Clock;
  /** The stopped execution never reaches its Notify step, so the cancel sends the webhook. */
  readonly notifier: WebhookNotifier;
}

/**
 * Marks the prediction canceled, then stops its execution. The worker learns of it from its next
 * heartbeat (the task is closed) and tells the model server to stop.
 */
export const cancelPredictionUseCase = async (
  deps: CancelDeps,
  id: PredictionId,
): Promise<Result<Prediction, PrognozError>> => {
  const applied = await applyEvent(deps.store, id, { type: 'canceled', atMs: deps.clock.now() });
  if (!applied.ok) return err(applied.error);
  if (applied.value.changed) {
    const arn = deps.stateMachineArnOf(applied.value.after.model);
    if (arn) await deps.workflow.stop(arn, id, 'canceled by its owner');
    if (applied.value.after.webhook !== null) await deps.notifier.notify({ predictionId: id, status: 'canceled' });
  }
  return ok(applied.value.after);
};
