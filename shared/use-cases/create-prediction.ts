import type { InputStore } from '../ports/input-store.ts';
import type { Inserted } from '../ports/prediction-store.ts';
import { holdFor } from '../domain/billing.ts';
import { PrognozError } from '../domain/errors.ts';
import { newPredictionId, type AccountId, type IdGenerator } from '../domain/ids.ts';
import { claimIdempotencyKey, type IdempotencyClaim, type PriorClaim } from '../domain/idempotency.ts';
import { inputPlacement, type Prediction, type StoredInput, type WebhookEvent } from '../domain/prediction.ts';
import { createPrediction } from '../domain/transition.ts';
import { requestFingerprint } from '../domain/request-fingerprint.ts';
import { err, ok, type Result } from '../domain/result.ts';
import { phaseLimitsOf, validateInput, type ModelDefinition } from '../catalog/registry.ts';
import type { KnownLimit, MonthlyLimits } from './monthly-limits.ts';
import { startCreated, type StartDeps, type StartOutcome } from './start-workflow.ts';

export interface CreateDeps extends StartDeps {
  /** The accounts' monthly limits as this process last read them. */
  readonly monthlyLimits: MonthlyLimits;
  readonly ids: IdGenerator;
  /** Where a large input is kept, so that the prediction's item stays small. */
  readonly inputs: InputStore;
}

export interface CreateRequest {
  readonly model: ModelDefinition;
  readonly owner: AccountId;
  readonly input: Record<string, unknown>;
  readonly webhook: string | null;
  /** `webhook_events_filter`; null: the end only (interface: Webhooks). */
  readonly webhookEvents?: readonly WebhookEvent[] | null;
  /** `Cancel-After`, seconds from creation. */
  readonly cancelAfterSeconds?: number | null;
  /** The API's address as the caller reached it, for the prediction's links. */
  readonly apiBase?: string | null;
  /** The inbox of this process, when the caller waits for the end (`Prefer: wait`): the ender tells it. */
  readonly waiter?: string | null;
  /** `Idempotency-Key`: a repeat of the same create under it within 24 h gets the first prediction. */
  readonly idempotencyKey?: string | null;
}

/**
 * The largest input a prediction takes (its JSON). Past INPUT_INLINE_BYTES it is kept in the
 * outputs bucket; a body this size is a file's work, and files travel as URLs.
 */
export const MAX_INPUT_BYTES = 300 * 1024;

export type Created =
  | { readonly kind: 'created'; readonly prediction: Prediction; readonly start: StartOutcome }
  /** A repeat under an `Idempotency-Key`: the first create's prediction as it stands now. */
  | { readonly kind: 'replayed'; readonly prediction: Prediction };

/** The create as sent, before the schema's defaults: what must match for a repeat to be the same request. */
const fingerprintOf = (request: CreateRequest): string =>
  requestFingerprint({
    model: request.model.id,
    input: request.input,
    webhook: request.webhook,
    webhookEvents: request.webhookEvents ?? null,
    cancelAfterSeconds: request.cancelAfterSeconds ?? null,
  });

const answerRepeat = async (
  deps: CreateDeps,
  prior: PriorClaim,
  fingerprint: string | undefined,
): Promise<Result<Created, PrognozError>> => {
  if (prior.fingerprint !== fingerprint) {
    return err(
      new PrognozError(
        'idempotency_key_reused',
        'this Idempotency-Key was used with another request within the last 24 hours; use a new key for a new request',
      ),
    );
  }
  const prediction = await deps.store.get(prior.predictionId);
  // Kept for less than the key's 24 h (a short retention): the first answer cannot be given again.
  if (!prediction)
    return err(
      new PrognozError('prediction_not_found', 'the prediction first made with this Idempotency-Key no longer exists'),
    );
  return ok({ kind: 'replayed', prediction });
};

/** A refused create's stored input goes; should that fail, the bucket's lifecycle removes it with the rest. */
const forget = async (deps: CreateDeps, stored: StoredInput): Promise<void> => {
  if (stored.kind === 'object') await deps.inputs.remove(stored.key).catch(() => undefined);
};

/** Reads of the limit after the first, should it keep changing under the insert. */
const MAX_LIMIT_REREADS = 3;

const accountGone = () => new PrognozError('invalid_token', 'the account behind this token is gone');

/**
 * Inserts the prediction under the account's monthly limit as known here, reading the limit again
 * when the store found it changed, or when a limit known from before refused the create (it may
 * have been raised since: then it is tried again under the new one). Null: the account is gone.
 */
const insertUnderLimit = async (
  deps: CreateDeps,
  prediction: Prediction,
  known: KnownLimit,
  claim: IdempotencyClaim | null,
): Promise<Result<Exclude<Inserted, { kind: 'limit_changed' }>, PrognozError> | null> => {
  let limit = known;
  for (let rereads = 0; ; rereads++) {
    const inserted = await deps.store.insert(prediction, limit.monthlyLimitKopecks, claim);
    if (inserted.ok) {
      const { value } = inserted;
      if (value.kind !== 'limit_changed') return ok(value);
    } else if (limit.fresh || inserted.error.code !== 'monthly_limit_reached') return inserted;
    if (rereads === MAX_LIMIT_REREADS)
      throw new Error(`the monthly limit of ${prediction.owner} changed under ${MAX_LIMIT_REREADS} inserts in a row`);
    const reread = await deps.monthlyLimits.reread(prediction.owner);
    if (!reread) return null;
    // Refused by the limit it still has: the refusal stands, and is not tried again (moments later, with funds freed since).
    if (!inserted.ok && reread.monthlyLimitKopecks === limit.monthlyLimitKopecks) return inserted;
    limit = reread;
  }
};

/**
 * Validates the input (kept in the outputs bucket when large), records the prediction as `starting` with its hold on the account's funds
 * (402 when they or the month's limit cannot cover it), and starts its workflow. A workflow that
 * cannot be started now leaves the prediction for the sweeper, never fails the create. Under an
 * `Idempotency-Key` already claimed, nothing is made: the same request gets the first prediction,
 * another request a 422.
 */
export const createPredictionUseCase = async (
  deps: CreateDeps,
  request: CreateRequest,
): Promise<Result<Created, PrognozError>> => {
  const input = validateInput(request.model, request.input);
  if (!input.ok) {
    return err(
      new PrognozError('invalid_input', `the input does not match the schema of ${request.model.id}`, {
        fields: input.error,
      }),
    );
  }
  const inputJson = JSON.stringify(input.value);
  const inputBytes = Buffer.byteLength(inputJson);
  if (inputBytes > MAX_INPUT_BYTES) {
    return err(
      new PrognozError(
        'payload_too_large',
        `the input is ${inputBytes} bytes of JSON, over the ${MAX_INPUT_BYTES}-byte limit; pass files as http(s) URLs`,
      ),
    );
  }
  const nowMs = deps.clock.now();
  const known = await deps.monthlyLimits.known(request.owner);
  if (!known) return err(accountGone());
  const id = newPredictionId(deps.ids);
  const stored: StoredInput =
    inputPlacement(inputBytes) === 'inline'
      ? { kind: 'inline', value: input.value }
      : { kind: 'object', key: await deps.inputs.put(id, inputJson), bytes: inputBytes };
  const prediction = createPrediction({
    id,
    model: request.model.id,
    owner: request.owner,
    input: stored,
    webhook: request.webhook,
    webhookEvents: request.webhookEvents ?? null,
    cancelAfterSeconds: request.cancelAfterSeconds ?? null,
    apiBase: request.apiBase ?? null,
    streamKey: deps.ids(),
    waiter: request.waiter ?? null,
    nowMs,
    hold: holdFor(request.model, nowMs),
    limits: phaseLimitsOf(request.model),
  });
  const claim = request.idempotencyKey
    ? claimIdempotencyKey(request.idempotencyKey, fingerprintOf(request), nowMs)
    : null;
  const reserved = await insertUnderLimit(deps, prediction, known, claim);
  if (reserved === null || !reserved.ok || reserved.value.kind === 'key_taken') await forget(deps, stored);
  if (reserved === null) return err(accountGone());
  if (!reserved.ok) return err(reserved.error);
  if (reserved.value.kind === 'key_taken') return answerRepeat(deps, reserved.value.prior, claim?.fingerprint);
  return ok({ kind: 'created', prediction, start: await startCreated(deps, prediction) });
};
