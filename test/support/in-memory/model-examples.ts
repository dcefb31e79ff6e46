import type { ModelExample, ModelExamples } from '../../../shared/ports/model-examples.ts';
import { answer } from './answer.ts';
import { pageOf } from './page.ts';

/** Models' examples in memory, in the order they were marked. */
export const inMemoryModelExamples = (): ModelExamples => {
  const examples = new Map<string, ModelExample>();
  const keyOf = (model: string, predictionId: string) => `${model}\n${predictionId}`;
  return {
    add: (example) =>
      answer(() => {
        const kept = examples.get(keyOf(example.model, example.predictionId));
        examples.set(keyOf(example.model, example.predictionId), {
          ...structuredClone(example),
          addedAt: kept?.addedAt ?? example.addedAt,
        });
      }),
    remove: (model, predictionId) => answer(() => examples.delete(keyOf(model, predictionId))),
    list: (model, request) =>
      answer(() =>
        pageOf(
          [...examples.values()]
            .filter((example) => example.model === model)
            .map((example) => structuredClone(example)),
          (example) => `${example.addedAt}#${example.predictionId}`,
          false,
          request,
        ),
      ),
  };
};
