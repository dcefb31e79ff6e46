import { presentFile } from '../../shared/api/file-view.ts';
import { ownedFile } from './files.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';

/** GET /api/v1/files/{id}: the file object, with a fresh `urls.get`. */
export const handler = httpHandler(async (event, _context, deps) => {
  const { files } = deps;
  return json(200, await presentFile(await ownedFile(event, files), files));
});
