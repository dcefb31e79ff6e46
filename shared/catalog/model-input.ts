import type { ModelDefinition } from './definition.ts';

/**
 * The input a model server is given from the one a caller gave: each file input fetched
 * (`fetchFile`, in order) and replaced by where the model server reads it, and each omitted
 * input that may be null given as null (coglet's own default for those).
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
      fetched.push(await fetchFile({ name: file.name, url, index: file.list ? index : null }));
    }
    prepared[file.name] = file.list ? fetched : fetched[0];
  }
  return prepared;
};

/** Why a file input could not be fetched, as the prediction's error says it. */
export const inputFetchError = (name: string, why: unknown): string =>
  `the input ${name} could not be fetched: ${why instanceof Error ? why.message : String(why)}`;
