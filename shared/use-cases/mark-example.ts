import type { ModelDefinition } from '../catalog/definition.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { Prediction } from '../domain/prediction.ts';
import { formatTimestamp, type Clock } from '../domain/clock.ts';
import { parsePredictionId } from '../domain/ids.ts';
import type { ModelExamples } from '../ports/model-examples.ts';
import type { OutputReader } from '../ports/output-store.ts';
import type { PredictionStore } from '../ports/prediction-store.ts';

export interface MarkExampleDeps {
  readonly store: Pick<PredictionStore, 'get'>;
  /** Where a large input or output is read from; null where it is not known (it is then refused). */
  readonly outputs: Pick<OutputReader, 'get'> | null;
  readonly examples: ModelExamples;
  readonly catalog: Pick<ModelCatalog, 'catalogModel'>;
  readonly clock: Clock;
  /** The copy every caller is shown (shared/api/example-view.ts), its input and output read from `outputs`. */
  readonly copyOf: (
    prediction: Prediction,
    model: ModelDefinition,
    outputs: Pick<OutputReader, 'get'>,
  ) => Promise<Record<string, unknown>>;
}

/** Why a prediction cannot be marked an example: told to the operator as it is. */
export class ExampleRefused extends Error {
  override readonly name = 'ExampleRefused';
}

/**
 * `npx prognoz models examples add MODEL PREDICTION_ID`: a succeeded prediction of the model, copied
 * (shared/api/example-view.ts says what is copied) and shown on the model's page from then on.
 */
export const markExample = async (deps: MarkExampleDeps, modelId: string, rawId: string): Promise<void> => {
  const model = deps.catalog.catalogModel(modelId);
  if (!model) throw new ExampleRefused(`there is no model ${modelId} in the catalog`);
  const id = parsePredictionId(rawId);
  const prediction = id === null ? null : await deps.store.get(id);
  if (!prediction) throw new ExampleRefused(`there is no prediction ${rawId}`);
  if (prediction.model !== model.id)
    throw new ExampleRefused(`prediction ${rawId} is of ${prediction.model}, not of ${model.id}`);
  if (prediction.status !== 'succeeded')
    throw new ExampleRefused(`prediction ${rawId} is ${prediction.status}: only a succeeded prediction is an example`);
  if (prediction.dataRemoved)
    throw new ExampleRefused(`prediction ${rawId} has had its input and output removed (its retention ended)`);
  const stored = prediction.input.kind === 'object' || prediction.output.kind === 'object';
  if (stored && deps.outputs === null)
    throw new ExampleRefused(
      `prediction ${rawId} keeps its input or output in the outputs bucket, which is not known here: give --stack NAME`,
    );
  const outputs = deps.outputs ?? { get: () => Promise.reject(new Error('no outputs bucket is known')) };
  const copy = await deps.copyOf(prediction, model, outputs);
  await deps.examples.add({
    model: model.id,
    predictionId: prediction.id,
    addedAt: formatTimestamp(deps.clock.now()),
    prediction: copy,
  });
};
