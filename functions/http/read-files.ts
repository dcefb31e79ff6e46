import type { z } from 'zod';
import { presentFile } from '../../shared/api/file-view.ts';
import type { fileListSchema } from '../../shared/api/file-view-schema.ts';
import { pageLinks, pageRequestOf } from '../../shared/api/page-links.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { TIMED_POSITION } from '../../shared/domain/page.ts';
import { ownedFile } from './files.ts';
import { accountOf } from './middleware.ts';
import { httpHandler } from './pipeline.ts';
import { streamingModeOf } from './streaming.ts';
import { apiBaseOf } from './public-url.ts';
import { json } from './respond.ts';

/** Files a page of `GET /files` lists: each brings a fresh presigned address, and there is no more to read. */
const FILE_PAGE_SIZE = 100;

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
        const request = pageRequestOf(event.queryStringParameters?.cursor, TIMED_POSITION, FILE_PAGE_SIZE);
        const page = await files.listOwned(accountOf(event), request);
        return json(200, {
          results: await Promise.all(page.items.map((file) => presentFile(file, files))),
          ...pageLinks(`${apiBaseOf(event)}/files`, page),
        } satisfies z.infer<typeof fileListSchema>);
      }
    }
  },
  { streaming: streamingModeOf('read-files') },
);
