import type * as z from 'zod';
import {
  hardwareOf,
  modelVersion,
  replicateModel,
  type modelVersionListSchema,
} from '../../shared/api/replicate-models.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { requestedModel } from './model-path.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { apiBaseOf } from './public-url.ts';
import { json } from './respond.ts';

/**
 * Replicate's catalog objects, one function for the four routes that read them (each a few lines,
 * and a function more each would cost the main stack its resources): the model object with its
 * one version within, the versions (whose id is the model's own, `company/model`, so that a
 * version's path has two segments), and the hardware the fleets run on.
 */
export const handler = httpHandler(async (event, _context, deps) => {
  switch (event.resource) {
    case '/api/v1/models/{company}/{model}': {
      const model = requestedModel(event, deps.catalog);
      const runs = await deps.accounts.runsThisMonth(accountOf(event), model.id, deps.clock.now());
      return json(200, replicateModel(model, apiBaseOf(event), runs));
    }
    case '/api/v1/models/{company}/{model}/versions':
      return json(200, {
        results: [modelVersion(requestedModel(event, deps.catalog))],
        next: null,
        previous: null,
      } satisfies z.infer<typeof modelVersionListSchema>);
    case '/api/v1/models/{company}/{model}/versions/{versionCompany}/{versionModel}': {
      const model = requestedModel(event, deps.catalog);
      const version = `${event.pathParameters?.versionCompany ?? ''}/${event.pathParameters?.versionModel ?? ''}`;
      if (version !== model.id)
        throw new PrognozError(
          'version_not_found',
          `${model.id} has one version, ${model.id}; there is no version ${version}`,
        );
      return json(200, modelVersion(model));
    }
    case '/api/v1/hardware':
      return json(200, hardwareOf(deps.catalog.offered));
    default:
      throw new PrognozError('route_not_found', `no catalog route ${event.resource}`);
  }
});
