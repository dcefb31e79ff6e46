import type { z } from 'zod';
import { fileListSchema, presentFile } from '../../shared/api/file-view.ts';
import { decodePageCursor, pageLinks } from '../../shared/api/page-links.ts';
import { isStreamingRoute } from '../../shared/api/routes.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { ownedFile } from './files.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { apiBaseOf } from './public-url.ts';
import { json } from './respond.ts';

/** Files a page of `GET /files` lists: each brings a fresh presigned address, and there is no more to read. */
export const FILE_PAGE_SIZE = 100;
/** A position in the list of files: the file's creation time and id (shared/adapters/table-keys.ts). */
const FILE_POSITION = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[A-Za-z0-9_-]+$/;

/**
 * What reads the caller's files, one function for the three routes (a function more each would
 * cost the main stack its resources), streamed for the bytes, which reach 100 MiB, past a buffered
 * answer's 6 MB:
 * - `GET /api/v1/files`: the caller's files, newest first, in Replicate's page shape;
 * - `GET /api/v1/files/{id}`: one, with a fresh `urls.get`;
 * - `GET /api/v1/files/{id}/download`: its bytes with their content type.
 * Another account's file is 404, as an expired one.
 */
export const handler = httpHandler(
  async (event, _context, deps) => {
    const { files } = deps;
    switch (event.resource) {
      case '/api/v1/files/{id}':
        return json(200, await presentFile(await ownedFile(event, files), files));
      case '/api/v1/files/{id}/download': {
        const file = await ownedFile(event, files);
        const opened = await files.open(file);
        if (opened === null)
          throw new PrognozError('file_not_found', `the bytes of file ${file.id} are gone: it has expired`);
        return {
          statusCode: 200,
          headers: {
            'content-type': opened.contentType,
            'content-length': String(opened.contentLength),
            // Saved under its own name; never shown inline, whatever type its uploader gave it.
            'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(file.name)}`,
            'x-content-type-options': 'nosniff',
            'cache-control': 'private, no-store',
            ...(opened.etag === null ? {} : { etag: opened.etag }),
          },
          body: opened.body as unknown as string,
        };
      }
      default: {
        const raw = event.queryStringParameters?.cursor;
        const from = raw === undefined ? undefined : decodePageCursor(raw, FILE_POSITION);
        if (from === null)
          throw new PrognozError(
            'invalid_query',
            'cursor is not one this API gave out: follow the next and previous links as they are',
          );
        const page = await files.listOwned(accountOf(event), { limit: FILE_PAGE_SIZE, ...(from ? { from } : {}) });
        return json(200, {
          results: await Promise.all(page.items.map((file) => presentFile(file, files))),
          ...pageLinks(`${apiBaseOf(event)}/files`, page),
        } satisfies z.infer<typeof fileListSchema>);
      }
    }
  },
  { streaming: isStreamingRoute('read-files') },
);
