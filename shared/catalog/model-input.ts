import { InputFetchFailed } from '../ports/run-inputs.ts';
import type { ModelDefinition } from './definition.ts';

/**
 * The input a model server is given from the one a caller gave: each file input fetched
 * (`fetchFile`, in order) and replaced by where the model server reads it, and each omitted
 * input that may be null given as null (coglet's own default for those). A file that cannot be
 * fetched rejects with InputFetchFailed, naming its input.
 */
export const inputForModel = async (
  model: Pick<ModelDefinition, 'files' | 'nullWhenOmitted'>,
  input: Readonly<Record<string, unknown>>,
  fetchFile: (file: { readonly name: string; readonly url: string; readonly index: number | null }) => Promise<string>,
): Promise<Record<string, unknown>> => {
  const prepared: Record<string, unknown> = { ...input };
  for (const name of model.nullWhenOmitted) if (!(name in prepared)) prepared[name] = null;
  for (const file of model.files) {
    const value = input[file.name];
    if (value === undefined || value === null) continue;
    const urls = Array.isArray(value) ? (value as unknown[]) : [value];
    const fetched: string[] = [];
    for (const [index, url] of urls.entries()) {
      if (typeof url !== 'string') continue;
      try {
        fetched.push(await fetchFile({ name: file.name, url, index: file.list ? index : null }));
      } catch (error) {
        throw new InputFetchFailed(
          `the input ${file.name} could not be fetched: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    prepared[file.name] = file.list ? fetched : fetched[0];
  }
  return prepared;
};
