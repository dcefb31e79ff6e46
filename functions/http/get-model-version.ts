import { modelVersion } from '../../shared/api/replicate-models.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { findModel } from '../../shared/models/registry.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/**
 * GET /api/v1/models/{company}/{model}/versions/{versionCompany}/{versionModel}: a model's one
 * version, whose id is the model's own (`company/model`), so that its path has two segments.
 */
export const handler = httpHandler(async (event) => {
  const params = event.pathParameters ?? {};
  const id = `${params.company ?? ''}/${params.model ?? ''}`;
  const model = findModel(id);
  if (!model) throw new PrognozError('model_not_found', `there is no model ${id}`);
  const version = `${params.versionCompany ?? ''}/${params.versionModel ?? ''}`;
  if (version !== model.id)
    throw new PrognozError('version_not_found', `${id} has one version, ${model.id}; there is no version ${version}`);
  return Promise.resolve(json(200, modelVersion(model)));
});
