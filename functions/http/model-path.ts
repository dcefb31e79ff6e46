import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PrognozError } from '../../shared/domain/errors.ts';
import type { ModelDefinition } from '../../shared/catalog/definition.ts';
import type { ModelCatalog } from '../../shared/catalog/model-catalog.ts';

/** The model a route's path names, `{company}/{model}`, as written (it may name no model). */
export const modelIdOf = (event: Pick<APIGatewayProxyEvent, 'pathParameters'>): string =>
  `${event.pathParameters?.company ?? ''}/${event.pathParameters?.model ?? ''}`;

/** The model a route's path names; 404 `model_not_found` when this deployment serves none of that id. */
export const requestedModel = (
  event: Pick<APIGatewayProxyEvent, 'pathParameters'>,
  catalog: Pick<ModelCatalog, 'find'>,
): ModelDefinition => {
  const id = modelIdOf(event);
  const model = catalog.find(id);
  if (!model) throw new PrognozError('model_not_found', `there is no model ${id}`);
  return model;
};
