import type * as z from 'zod';
import { modelVersion, type modelVersionListSchema } from '../../shared/api/replicate-models.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { findModel } from '../../shared/models/registry.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/** GET /api/v1/models/{company}/{model}/versions: the model's one version, as a page. */
export const handler = httpHandler(async (event) => {
  const id = `${event.pathParameters?.company ?? ''}/${event.pathParameters?.model ?? ''}`;
  const model = findModel(id);
  if (!model) throw new PrognozError('model_not_found', `there is no model ${id}`);
  return Promise.resolve(
    json(200, { results: [modelVersion(model)], next: null, previous: null } satisfies z.infer<
      typeof modelVersionListSchema
    >),
  );
});
