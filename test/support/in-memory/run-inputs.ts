import type { ModelDefinition } from '../../../shared/catalog/definition.ts';
import { inputForModel } from '../../../shared/catalog/model-input.ts';
import type { RunInputs } from '../../../shared/ports/run-inputs.ts';

export interface InMemoryRunInputs extends RunInputs {
  /** What the model server reads at each address given to it, while its run is not over. */
  read(address: string): string | null;
  /** The runs let go of, in order. */
  readonly released: string[];
}

/**
 * A run's file inputs in memory: `files` holds what each URL serves (an Error: the fetch fails
 * with it); a fetched file is served at `memory://<run>/<input>[-index]` until the run is let go
 * of. The twin of the worker's folders (worker/run-inputs.ts), held to the same contract.
 */
export const inMemoryRunInputs = (
  model: Pick<ModelDefinition, 'files' | 'nullWhenOmitted'>,
  files: Readonly<Record<string, string | Error>>,
): InMemoryRunInputs => {
  const served = new Map<string, Map<string, string>>();
  const released: string[] = [];
  return {
    released,
    read: (address) => {
      for (const run of served.values()) {
        const text = run.get(address);
        if (text !== undefined) return text;
      }
      return null;
    },
    prepare: async (predictionId, input, signal) => {
      const run = new Map<string, string>();
      served.set(predictionId, run);
      return inputForModel(model, input, ({ name, url, index }) => {
        const text = signal.aborted ? new Error('the run was stopped') : (files[url] ?? new Error(`no file at ${url}`));
        if (text instanceof Error) return Promise.reject(text);
        const address = `memory://${predictionId}/${name}${index === null ? '' : `-${index}`}`;
        run.set(address, text);
        return Promise.resolve(address);
      });
    },
    release: (predictionId) => {
      served.delete(predictionId);
      released.push(predictionId);
      return Promise.resolve();
    },
  };
};
