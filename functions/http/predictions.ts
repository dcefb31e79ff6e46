import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PrognozError } from '../../shared/domain/errors.ts';
import { parsePredictionId } from '../../shared/domain/ids.ts';
import type { Prediction } from '../../shared/domain/prediction.ts';
import type { PredictionStore } from '../../shared/ports/prediction-store.ts';
import { accountOf } from './middleware.ts';

/** Loads the prediction named in the path, as its owner sees it; anyone else gets 404. */
export const ownedPrediction = async (event: APIGatewayProxyEvent, store: PredictionStore): Promise<Prediction> => {
  const raw = event.pathParameters?.id ?? '';
  const notFound = () => new PrognozError('prediction_not_found', `no prediction ${raw} was found for this account`);
  const id = parsePredictionId(raw);
  if (id === null) throw notFound();
  const prediction = await store.get(id);
  if (!prediction || prediction.owner !== accountOf(event)) throw notFound();
  return prediction;
};

export const predictionLocation = (prediction: Prediction): string => `/api/v1/predictions/${prediction.id}`;
