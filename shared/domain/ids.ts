import { randomUUID } from 'node:crypto';
import * as z from '../zod-mini.ts';

declare const predictionIdBrand: unique symbol;
/** A UUID-shaped prediction id. Only `parsePredictionId` and id generators make one. */
export type PredictionId = string & { readonly [predictionIdBrand]: true };

declare const fileIdBrand: unique symbol;
/** A UUID-shaped id of an uploaded file. Only `parseFileId` and `newFileId` make one. */
export type FileId = string & { readonly [fileIdBrand]: true };

declare const accountIdBrand: unique symbol;
export type AccountId = string & { readonly [accountIdBrand]: true };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const parsePredictionId = (raw: string): PredictionId | null => (UUID.test(raw) ? (raw as PredictionId) : null);

export const parseFileId = (raw: string): FileId | null => (UUID.test(raw) ? (raw as FileId) : null);

export const asAccountId = (raw: string): AccountId => raw as AccountId;

/**
 * A prediction id where a message or an item is parsed: the id is branded there, once, and every
 * hop after it carries a PredictionId rather than casting a string.
 */
export const predictionIdSchema = z.pipe(
  z.string(),
  z.custom<PredictionId>((raw) => typeof raw === 'string' && parsePredictionId(raw) !== null, 'not a prediction id'),
);

export type IdGenerator = () => string;
export const randomIds: IdGenerator = () => randomUUID();

export const newPredictionId = (ids: IdGenerator = randomIds): PredictionId => {
  const id = parsePredictionId(ids());
  if (id === null) throw new Error('id generator produced a non-UUID id');
  return id;
};

export const newFileId = (ids: IdGenerator = randomIds): FileId => {
  const id = parseFileId(ids());
  if (id === null) throw new Error('id generator produced a non-UUID id');
  return id;
};
