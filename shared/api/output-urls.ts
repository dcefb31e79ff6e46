import {
  isFileReference,
  mapStrings,
  mentionsFileReference,
  outputFilesKey,
  referencedKey,
  someString,
} from '../domain/output-files.ts';
import type { Prediction } from '../domain/prediction.ts';
import { predictionOutputsPrefix } from '../ports/output-store.ts';

/** The prediction's parts its file URLs are made of. */
export type FileLinked = Pick<Prediction, 'id' | 'apiBase' | 'streamKey'>;

/**
 * The URL that serves one of a prediction's output files: on the API, under the prediction, with
 * the prediction's files key. Always https: Replicate's clients take only an https URL for a file
 * (`FileOutput`); the local runtime's API answers https on its one port too.
 */
export const outputFileUrl = (prediction: FileLinked, key: string): string => {
  const base = new URL(`${prediction.apiBase ?? ''}/`.replace(/\/+$/, '/'));
  base.protocol = 'https:';
  const file = key.slice(predictionOutputsPrefix(prediction.id).length);
  const url = new URL(`predictions/${prediction.id}/output/${file}`, base);
  url.searchParams.set('key', outputFilesKey(prediction.streamKey ?? ''));
  return url.toString();
};

/**
 * An output as callers see it: each file the model returned (kept in the outputs bucket, its
 * reference in the stored output) as the URL that serves it, for as long as the prediction's
 * data is kept. A reference to anything outside the prediction's own outputs is left as text.
 */
export const withFileUrls = (output: unknown, prediction: FileLinked): unknown => {
  if (prediction.apiBase === null || prediction.streamKey === null || !someString(output, isFileReference))
    return output;
  const prefix = predictionOutputsPrefix(prediction.id);
  return mapStrings(output, (text) => {
    const key = referencedKey(text, prefix);
    return key === null ? text : outputFileUrl(prediction, key);
  });
};

/**
 * The prediction with the pieces it streamed holding URLs for their files: a piece is a file
 * itself (an iterator of `Path`) or the JSON text of an item that holds files.
 */
export const withStreamedFileUrls = (prediction: Prediction): Prediction => {
  if (!('streamed' in prediction) || prediction.streamed === null) return prediction;
  const pieces = prediction.streamed.map((piece) => {
    if (isFileReference(piece)) return withFileUrls(piece, prediction) as string;
    if (!mentionsFileReference(piece)) return piece;
    try {
      return JSON.stringify(withFileUrls(JSON.parse(piece), prediction));
    } catch {
      return piece;
    }
  });
  return { ...prediction, streamed: pieces };
};
