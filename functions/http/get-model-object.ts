import { replicateModel } from '../../shared/api/replicate-models.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { findModel } from '../../shared/models/registry.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { apiBaseOf } from './public-url.ts';
import { json } from './respond.ts';

/** GET /api/v1/models/{company}/{model}: the model as Replicate's clients read it, its one version within. */
export const handler = httpHandler(async (event, _context, deps) => {
  const id = `${event.pathParameters?.company ?? ''}/${event.pathParameters?.model ?? ''}`;
  const model = findModel(id);
  if (!model) throw new PrognozError('model_not_found', `there is no model ${id}`);
  const runs = await deps.accounts.runsThisMonth(accountOf(event), model.id, deps.clock.now());
  return json(200, replicateModel(model, apiBaseOf(event), runs));
});
