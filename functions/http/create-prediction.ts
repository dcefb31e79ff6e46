import { isStreamingRoute } from '../../shared/api/routes.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { toPredictionView } from '../../shared/api/prediction-view.ts';
import { coerceFormInput, findModel } from '../../shared/models/registry.ts';
import { createPredictionUseCase } from '../../shared/use-cases/create-prediction.ts';
import { waitForPrediction } from '../../shared/use-cases/wait-for-prediction.ts';
import { parseBody } from './body.ts';
import { apiDeps } from './deps.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { predictionLocation } from './predictions.ts';
import { parseWaitPreference, resolveWebhook } from './request-options.ts';
import { json } from './respond.ts';

/** POST /api/v1/{company}/{model} */
export const handler = httpHandler(async (event) => {
  const deps = apiDeps();
  const modelId = `${event.pathParameters?.company ?? ''}/${event.pathParameters?.model ?? ''}`;
  const model = findModel(modelId);
  const stateMachineArn = deps.config.stateMachines[modelId];
  if (!model || !stateMachineArn) throw new PrognozError('model_not_found', `there is no model ${modelId}`);

  const wait = parseWaitPreference(event.headers);
  const body = parseBody(event);
  const { webhook: webhookField, ...fields } = body.value;
  const webhook = resolveWebhook(event.headers, webhookField, deps.addressPolicy);
  const refused = webhook === null ? null : await deps.checkWebhookHost(webhook);
  if (refused !== null) {
    throw new PrognozError('invalid_input', `the webhook address cannot be used: ${refused}`, { fields: [{ field: 'webhook', message: refused }] });
  }
  const input = body.kind === 'form' ? coerceFormInput(model, fields as Record<string, string>) : fields;

  const created = await createPredictionUseCase(
    { store: deps.store, accounts: deps.accounts, workflow: deps.workflow, stateMachineArn, clock: deps.clock, ids: deps.ids },
    { model, owner: accountOf(event), input, webhook },
  );
  if (!created.ok) throw created.error;
  const prediction = wait.sync ? await waitForPrediction(deps, created.value, wait.timeoutMs) : created.value;
  return json(201, toPredictionView(prediction, { includeCost: true }), { location: predictionLocation(prediction) });
}, { streaming: isStreamingRoute('create-prediction') });
