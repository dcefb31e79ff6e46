import type { Prediction } from '../domain/prediction.ts';
import type { OutputStore } from '../ports/output-store.ts';

/** A prediction's input, read from the outputs bucket where a large one is kept by reference. */
export const inputOf = async (
  prediction: Prediction,
  objects: Pick<OutputStore, 'get'>,
): Promise<Readonly<Record<string, unknown>>> =>
  prediction.input.kind === 'inline'
    ? prediction.input.value
    : (JSON.parse(await objects.get(prediction.input.key)) as Record<string, unknown>);

/** The prediction with its input read in (`inputOf`), for those who show it. */
export const withInputRead = async (prediction: Prediction, objects: Pick<OutputStore, 'get'>): Promise<Prediction> =>
  prediction.input.kind === 'inline'
    ? prediction
    : { ...prediction, input: { kind: 'inline', value: await inputOf(prediction, objects) } };
