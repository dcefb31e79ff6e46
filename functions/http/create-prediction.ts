import { PrognozError } from '../../shared/domain/errors.ts';
import { parseCancelAfter } from '../../shared/domain/deadline.ts';
import { coerceFormInput } from '../../shared/catalog/registry.ts';
import { createPredictionUseCase } from '../../shared/use-cases/create-prediction.ts';
import { waitForPrediction, waiterAddress } from '../../shared/use-cases/wait-for-prediction.ts';
import { parseBody } from './body.ts';
import { callerGone } from './caller.ts';
import { readCreateAsk } from './create-request.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { streamingModeOf } from './streaming.ts';
import { predictionLocation } from './predictions.ts';
import { presentForCaller } from './present.ts';
import { apiBaseOf } from './public-url.ts';
import { parseIdempotencyKey, parseWaitPreference, resolveWebhook } from './request-options.ts';
import { logger } from './logger.ts';
import { json } from './respond.ts';

/**
 * POST /api/v1/{company}/{model} (the interface's: docs/interface.md), and Replicate's POST /api/v1/models/{company}/{model}/predictions
 * and POST /api/v1/predictions: one create, whichever way it is asked.
 */
export const handler = httpHandler(
  async (event, context, deps) => {
    const wait = parseWaitPreference(event.headers);
    const idempotencyKey = parseIdempotencyKey(event.headers);
    const cancelAfter = event.headers['cancel-after'];
    const cancelAfterSeconds = cancelAfter === undefined ? null : parseCancelAfter(cancelAfter);
    const ask = readCreateAsk(event, parseBody(event));
    const model = deps.catalog.find(ask.modelId);
    if (!model || deps.stateMachineArnOf(ask.modelId) === undefined)
      throw new PrognozError('model_not_found', `there is no model ${ask.modelId}`);

    const webhook = resolveWebhook(event, ask.webhookField, deps.addressPolicy);
    const refused = webhook === null ? null : await deps.checkWebhookHost(webhook);
    if (refused !== null) {
      throw new PrognozError('invalid_input', `the webhook address cannot be used: ${refused}`, {
        fields: [{ field: 'webhook', message: refused }],
      });
    }
    const input = ask.inputIsForm ? coerceFormInput(model, ask.input as Record<string, string>) : ask.input;
    const waiter = wait.sync
      ? await waiterAddress(deps.endingInbox, (error) =>
          logger.error('no inbox for ending notices: this wait reads the prediction on its own', {
            error: String(error),
          }),
        )
      : null;

    const created = await createPredictionUseCase(deps, {
      model,
      owner: accountOf(event),
      input,
      webhook,
      webhookEvents: ask.webhookEvents,
      cancelAfterSeconds,
      apiBase: apiBaseOf(event),
      waiter,
      idempotencyKey,
    });
    if (!created.ok) throw created.error;
    const accepted = created.value.prediction;
    if (created.value.kind === 'created' && created.value.start.kind !== 'running') {
      logger.warn('the workflow did not start; the sweeper will start it', {
        predictionId: accepted.id,
        start: created.value.start,
      });
    }
    // A caller who leaves ends the wait, never the prediction.
    const prediction = wait.sync
      ? await waitForPrediction(deps, accepted, wait.timeoutMs, callerGone(context))
      : accepted;
    // The draft's answer to a repeat is the first one's; this header tells the two apart.
    const replayed: Record<string, string> = created.value.kind === 'replayed' ? { 'idempotent-replayed': 'true' } : {};
    return json(201, await presentForCaller(event, prediction, deps), {
      location: predictionLocation(prediction),
      ...replayed,
    });
  },
  { streaming: streamingModeOf('create-prediction') },
);
