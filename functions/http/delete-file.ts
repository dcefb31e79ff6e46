import { ownedFile } from './files.ts';
import { httpHandler } from './pipeline.ts';

/** DELETE /api/v1/files/{id}: 204 with no body, as Replicate answers. */
export const handler = httpHandler(async (event, _context, deps) => {
  const { files } = deps;
  await files.remove(await ownedFile(event, files));
  return { statusCode: 204, headers: {}, body: '' };
});
