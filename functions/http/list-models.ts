import type { z } from 'zod';
import { modelSummary } from '../../shared/api/model-view.ts';
import type { modelListSchema } from '../../shared/api/model-view-schema.ts';
import { httpHandler } from './pipeline.ts';
import { apiBaseOf } from './public-url.ts';
import { json } from './respond.ts';

/** GET /api/v1/models: the models the caller can run, with their prices and links. */
export const handler = httpHandler(async (event, _context, deps) => {
  const apiBase = apiBaseOf(event);
  return Promise.resolve(
    json(200, { results: deps.catalog.offered.map((model) => modelSummary(model, apiBase)) } satisfies z.infer<
      typeof modelListSchema
    >),
  );
});
