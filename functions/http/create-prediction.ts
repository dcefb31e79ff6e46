import { isStreamingRoute } from '../../shared/api/routes.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { presentPrediction } from '../../shared/api/prediction-view.ts';
import { coerceFormInput, findModel } from '../../shared/models/registry.ts';
import { createPredictionUseCase } from '../../shared/use-cases/create-prediction.ts';
import { waitForPrediction } from '../../shared/use-cases/wait-for-prediction.ts';
import { parseBody } from './body.ts';
import { apiDeps } from './deps.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { predictionLocation } from './predictions.ts';
import { parseWaitPreference, resolveWebhook } from './request-options.ts';
import { logger } from './logger.ts';
import { json } from './respond.ts';

/** POST /api/v1/{company}/{model} */
export const handler = httpHandler(async (event) => {
  const deps = apiDeps();
  const modelId = `${event.pathParameters?.company ?? ''}/${event.pathParameters?.model ?? ''}`;
  const model = findModel(modelId);
  if (!model || deps.stateMachineArnOf(modelId) === undefined) throw new PrognozError('model_not_found', `there is no model ${modelId}`);

  const wait = parseWaitPreference(event.headers);
  const body = parseBody(event);
  const { webhook: webhookField, ...fields } = body.value;
  const webhook = resolveWebhook(event.headers, webhookField, deps.addressPolicy);
  const refused = webhook === null ? null : await deps.checkWebhookHost(webhook);
  if (refused !== null) {
    throw new PrognozError('invalid_input', `the webhook address cannot be used: ${refused}`, { fields: [{ field: 'webhook', message: refused }] });
  }
  const input = body.kind === 'form' ? coerceFormInput(model, fields as Record<string, string>) : fields;

  const created = await createPredictionUseCase(deps, { model, owner: accountOf(event), input, webhook });
  if (!created.ok) throw created.error;
  const { prediction: accepted, start } = created.value;
  if (start.kind !== 'queued') logger.warn('the workflow did not start; the sweeper will start it', { predictionId: accepted.id, start });
  const prediction = wait.sync ? await waitForPrediction(deps, accepted, wait.timeoutMs) : accepted;
  return json(201, await presentPrediction(prediction, deps.outputs, { includeCost: true }), { location: predictionLocation(prediction) });
}, { streaming: isStreamingRoute('create-prediction') });
