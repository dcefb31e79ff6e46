import type { WorkflowClient } from '../adapters/workflow-client.ts';
import type { AccountStore } from '../adapters/account-store.ts';
import type { PredictionStore } from '../adapters/prediction-store.ts';
import { holdFor } from '../domain/billing.ts';
import type { Clock } from '../domain/clock.ts';
import { PrognozError } from '../domain/errors.ts';
import { newPredictionId, type AccountId, type IdGenerator } from '../domain/ids.ts';
import { createPrediction, type Prediction } from '../domain/prediction.ts';
import { err, ok, type Result } from '../domain/result.ts';
import { validateInput, type ModelDefinition } from '../models/registry.ts';
import { applyEvent } from './apply-event.ts';

export interface CreateDeps {
  readonly store: PredictionStore;
  readonly accounts: AccountStore;
  readonly workflow: WorkflowClient;
  readonly stateMachineArn: string;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

export interface CreateRequest {
  readonly model: ModelDefinition;
  readonly owner: AccountId;
  readonly input: Record<string, unknown>;
  readonly webhook: string | null;
}

/**
 * Validates the input, records the prediction as `starting` with its hold on the account's funds
 * (402 when they or the month's limit cannot cover it), and starts its workflow. If the
 * workflow cannot be started the prediction is ended `failed`, so nothing is left waiting.
 */
export const createPredictionUseCase = async (
  deps: CreateDeps,
  request: CreateRequest,
): Promise<Result<Prediction, PrognozError>> => {
  const input = validateInput(request.model, request.input);
  if (!input.ok) {
    return err(new PrognozError('invalid_input', `the input does not match the schema of ${request.model.id}`, { fields: input.error }));
  }
  const nowMs = deps.clock.now();
  const account = await deps.accounts.getAccount(request.owner, nowMs);
  if (!account) return err(new PrognozError('invalid_token', 'the account behind this token is gone'));
  const prediction = createPrediction({
    id: newPredictionId(deps.ids),
    model: request.model.id,
    owner: request.owner,
    input: input.value,
    webhook: request.webhook,
    nowMs,
    hold: holdFor(request.model, nowMs),
  });
  const reserved = await deps.store.insert(prediction, account.monthlyLimitKopecks);
  if (!reserved.ok) return err(reserved.error);
  try {
    await deps.workflow.start(deps.stateMachineArn, { predictionId: prediction.id });
  } catch (error) {
    await applyEvent(deps.store, prediction.id, {
      type: 'failed',
      atMs: deps.clock.now(),
      error: 'the service could not start this prediction; please retry',
      runtimeMs: null,
    });
    throw error;
  }
  return ok(prediction);
};
