import type { AccountStore } from '../adapters/account-store.ts';
import { holdFor } from '../domain/billing.ts';
import { PrognozError } from '../domain/errors.ts';
import { newPredictionId, type AccountId, type IdGenerator } from '../domain/ids.ts';
import { createPrediction, type Prediction } from '../domain/prediction.ts';
import { err, ok, type Result } from '../domain/result.ts';
import { validateInput, type ModelDefinition } from '../models/registry.ts';
import { startWorkflow, type StartDeps, type StartOutcome } from './start-workflow.ts';

export interface CreateDeps extends StartDeps {
  readonly accounts: AccountStore;
  readonly ids: IdGenerator;
}

export interface CreateRequest {
  readonly model: ModelDefinition;
  readonly owner: AccountId;
  readonly input: Record<string, unknown>;
  readonly webhook: string | null;
}

/**
 * The largest input a prediction keeps (its JSON): it lives in the prediction's table item,
 * which DynamoDB caps at 400 KB with everything else. Files travel as URLs.
 */
export const MAX_INPUT_BYTES = 300 * 1024;

export interface Created {
  readonly prediction: Prediction;
  readonly start: StartOutcome;
}

/**
 * Validates the input, records the prediction as `starting` with its hold on the account's funds
 * (402 when they or the month's limit cannot cover it), and starts its workflow. A workflow that
 * cannot be started now leaves the prediction for the sweeper, never fails the create.
 */
export const createPredictionUseCase = async (deps: CreateDeps, request: CreateRequest): Promise<Result<Created, PrognozError>> => {
  const input = validateInput(request.model, request.input);
  if (!input.ok) {
    return err(new PrognozError('invalid_input', `the input does not match the schema of ${request.model.id}`, { fields: input.error }));
  }
  const inputBytes = Buffer.byteLength(JSON.stringify(input.value));
  if (inputBytes > MAX_INPUT_BYTES) {
    return err(new PrognozError('payload_too_large', `the input is ${inputBytes} bytes of JSON, over the ${MAX_INPUT_BYTES}-byte limit; pass files as http(s) URLs`));
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
  return ok({ prediction, start: await startWorkflow(deps, prediction) });
};
