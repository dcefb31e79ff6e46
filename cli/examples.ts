import { dynamoModelExamples } from '../shared/adapters/model-examples.ts';
import { dynamoPredictionStore } from '../shared/adapters/prediction-store.ts';
import { systemClock } from '../shared/domain/clock.ts';
import type { ModelCatalog } from '../shared/catalog/model-catalog.ts';
import { markExample } from '../shared/use-cases/mark-example.ts';
import { presentExample } from '../shared/api/example-view.ts';
import type { Target } from './target.ts';

/** The most examples `list` shows: a model's page shows its first. */
const LISTED = 100;

/**
 * `npx prognoz models examples (add MODEL PREDICTION_ID | remove MODEL PREDICTION_ID | list MODEL)`:
 * the predictions shown on a model's page (`GET /models/{owner}/{name}/examples`). 2: not a command of it.
 */
export const examplesCommand = async (
  args: readonly string[],
  target: Target,
  catalog: ModelCatalog,
  print: (data: unknown, text: string) => void,
): Promise<number> => {
  const [action, model, predictionId] = args;
  const examples = dynamoModelExamples(target.tableName, target.client);
  if (!model || !catalog.catalogModel(model))
    throw new Error(`which model? give one of ${catalog.all.map((m) => m.id).join(', ')}`);
  switch (action) {
    case 'add': {
      if (!predictionId) throw new Error('which prediction? give its id');
      const store = dynamoPredictionStore(target.tableName, target.client);
      const deps = {
        store,
        outputs: target.outputs,
        examples,
        catalog,
        clock: systemClock,
        copyOf: presentExample(catalog),
      };
      await markExample(deps, model, predictionId);
      print({ model, prediction: predictionId, example: true }, `prediction ${predictionId} is an example of ${model}`);
      return 0;
    }
    case 'remove': {
      if (!predictionId) throw new Error('which prediction? give its id');
      if (!(await examples.remove(model, predictionId)))
        throw new Error(`prediction ${predictionId} is not an example of ${model}`);
      print(
        { model, prediction: predictionId, example: false },
        `prediction ${predictionId} is no longer an example of ${model}`,
      );
      return 0;
    }
    case 'list': {
      const { items } = await examples.list(model, { limit: LISTED });
      print(
        items.map((example) => ({ prediction: example.predictionId, added_at: example.addedAt })),
        items.map((example) => `${example.predictionId}  marked ${example.addedAt}`).join('\n') ||
          `${model} has no examples`,
      );
      return 0;
    }
    default:
      return 2;
  }
};
