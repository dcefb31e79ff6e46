import type { Clock } from '../domain/clock.ts';
import type { PrognozError } from '../domain/errors.ts';
import type { PredictionId } from '../domain/ids.ts';
import type { TerminalPrediction } from '../domain/prediction.ts';
import { err, ok, type Result } from '../domain/result.ts';
import type { EndingTeller } from '../ports/ending-notices.ts';
import type { WebhookNotifier } from '../ports/webhook-notifier.ts';
import type { WorkflowClient } from '../ports/workflow-client.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';
import { endPrediction, stoppingExecutions } from './end-prediction.ts';

export interface CancelDeps {
  readonly store: PredictionStore;
  /** The policies the predictions move on by. */
  readonly catalog: ModelCatalog;
  readonly notifier: WebhookNotifier;
  readonly endingTeller: EndingTeller;
  readonly workflow: WorkflowClient;
  readonly stateMachineArnOf: (model: string) => string | undefined;
  readonly clock: Clock;
}

/**
 * Marks the prediction canceled, then stops its execution and queues its webhook. The worker
 * sees the cancel at its next status check and stops the model. A cancel repeated after one
 * that failed half-way (status written, execution or webhook not) finishes what that one began.
 */
export const cancelPredictionUseCase = async (
  deps: CancelDeps,
  id: PredictionId,
): Promise<Result<TerminalPrediction, PrognozError>> => {
  const ended = await endPrediction(stoppingExecutions(deps, 'canceled by its owner'), id, {
    type: 'canceled',
    atMs: deps.clock.now(),
    by: 'api',
  });
  return ended.ok ? ok(ended.value) : err(ended.error);
};
