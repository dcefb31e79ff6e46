import type { APIGatewayProxyEvent } from 'aws-lambda';
import {
  asReplicateClientsSeeIt,
  presentPrediction,
  REPLICATE_CLIENT_AGENT,
  type PredictionView,
} from '../../shared/api/prediction-view.ts';
import type { Prediction } from '../../shared/domain/prediction.ts';
import type { ModelCatalog } from '../../shared/catalog/model-catalog.ts';
import type { OutputStore } from '../../shared/ports/output-store.ts';

/** How this caller's client reads a prediction: in the statuses it knows. */
export const viewForCaller = (event: APIGatewayProxyEvent): ((view: PredictionView) => PredictionView) =>
  REPLICATE_CLIENT_AGENT.test(event.headers['user-agent'] ?? '') ? asReplicateClientsSeeIt : (view) => view;

/** The prediction as this caller sees it in a response: with its cost, and in the statuses its client knows. */
export const presentForCaller = async (
  event: APIGatewayProxyEvent,
  prediction: Prediction,
  {
    outputs,
    catalog,
  }: { readonly outputs: Pick<OutputStore, 'get'>; readonly catalog: Pick<ModelCatalog, 'catalogModel'> },
): Promise<PredictionView> =>
  viewForCaller(event)(await presentPrediction(prediction, outputs, { includeCost: true, catalog }));
