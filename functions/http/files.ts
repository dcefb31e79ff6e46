import type { APIGatewayProxyEvent } from 'aws-lambda';
import { PrognozError } from '../../shared/domain/errors.ts';
import { parseFileId } from '../../shared/domain/ids.ts';
import type { StoredFile } from '../../shared/domain/stored-file.ts';
import type { FileStore } from '../../shared/ports/file-store.ts';
import { accountOf } from './middleware.ts';

/** Loads the file named in the path, as its owner sees it; anyone else gets 404, as for an expired one. */
export const ownedFile = async (event: APIGatewayProxyEvent, files: FileStore): Promise<StoredFile> => {
  const raw = event.pathParameters?.id ?? '';
  const notFound = () => new PrognozError('file_not_found', `no file ${raw} was found for this account`);
  const id = parseFileId(raw);
  if (id === null) throw notFound();
  const file = await files.find(id);
  if (!file || file.owner !== accountOf(event)) throw notFound();
  return file;
};
