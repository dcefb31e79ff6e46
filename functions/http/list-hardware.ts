import { hardwareOf } from '../../shared/api/replicate-models.ts';
import { allModels } from '../../shared/models/registry.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/** GET /api/v1/hardware: the kinds of machine this deployment's fleets run on (a bare list, as Replicate's). */
export const handler = httpHandler(async () => Promise.resolve(json(200, hardwareOf(allModels()))));
