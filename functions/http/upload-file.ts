import { presentFile } from '../../shared/api/file-view.ts';
import { uploadFileUseCase } from '../../shared/use-cases/upload-file.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { json } from './respond.ts';
import { readUpload } from './upload-body.ts';

/** POST /api/v1/files (Replicate's): keeps a file for the retention period; its `urls.get` is usable as a file input. */
export const handler = httpHandler(async (event, _context, deps) => {
  const upload = await readUpload(event);
  const file = await uploadFileUseCase(deps, { owner: accountOf(event), ...upload });
  return json(201, await presentFile(file, deps.files));
});
