/**
 * Where an input too large for its prediction's item is kept: the outputs bucket, beside the
 * outputs, under the same retention (architecture: Data). It is read back as outputs are, by key
 * (`OutputReader.get`).
 */
export interface InputStore {
  /** Stores a prediction's input (its JSON text) and returns its key. */
  put(predictionId: string, json: string): Promise<string>;
  /** Removes a stored input: a create refused after its input was stored leaves nothing behind. */
  remove(key: string): Promise<void>;
}

/** Every stored input's key begins with this: the API may write only here, the worker read only here. */
export const INPUTS_PREFIX = 'inputs/';

/** The one object a prediction's input is kept in. */
export const inputObjectKey = (predictionId: string): string => `${INPUTS_PREFIX}${predictionId}.json`;
