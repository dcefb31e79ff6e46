import type { ModelDefinition } from '../catalog/definition.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import type { Prediction } from '../domain/prediction.ts';
import type { OutputReader } from '../ports/output-store.ts';
import { presentPrediction, type PredictionView } from './prediction-view.ts';

/**
 * What an example copies of a prediction, as its owner was shown it: what any caller may see.
 *
 * Copied: its id, model and version; its input, with secret inputs redacted (as every view has
 * them) and each file input's URL without its query and fragment, where signatures and tokens
 * travel; its output, whose files' URLs open this prediction's output files alone (until its data
 * is removed at the end of its retention); its times and metrics.
 *
 * Not copied: the owner's account, its cost, its logs (a model may print its input there, secrets
 * included), its webhook and event filter, and its `urls` (its stream key).
 */
export const exampleCopy = (view: PredictionView, model: Pick<ModelDefinition, 'files'>): Record<string, unknown> => ({
  id: view.id,
  model: view.model,
  version: view.version,
  input: withoutUrlSecrets(view.input, model),
  output: view.output,
  error: null,
  status: view.status,
  source: view.source,
  logs: '',
  runtime: view.runtime,
  created_at: view.created_at,
  started_at: view.started_at,
  completed_at: view.completed_at,
  metrics: view.metrics,
  data_removed: false,
});

/** A URL's scheme, host and path alone; a `data:` URL (the bytes themselves) as it is. */
const bareUrl = (value: unknown): unknown => {
  if (typeof value !== 'string' || value.startsWith('data:')) return value;
  try {
    const url = new URL(value);
    url.search = '';
    url.hash = '';
    url.username = '';
    url.password = '';
    return url.toString();
  } catch {
    return value;
  }
};

const withoutUrlSecrets = (
  input: Readonly<Record<string, unknown>>,
  model: Pick<ModelDefinition, 'files'>,
): Record<string, unknown> => {
  const copy: Record<string, unknown> = { ...input };
  for (const { name, list } of model.files) {
    if (!Object.hasOwn(copy, name)) continue;
    const value = copy[name];
    copy[name] = list && Array.isArray(value) ? value.map(bareUrl) : bareUrl(value);
  }
  return copy;
};

/** The example of a prediction, its input and output read in as its owner is shown them (markExample's `copyOf`). */
export const presentExample =
  (catalog: Pick<ModelCatalog, 'catalogModel'>) =>
  async (
    prediction: Prediction,
    model: Pick<ModelDefinition, 'files'>,
    outputs: Pick<OutputReader, 'get'>,
  ): Promise<Record<string, unknown>> =>
    exampleCopy(await presentPrediction(prediction, outputs, { includeCost: false, catalog }), model);
