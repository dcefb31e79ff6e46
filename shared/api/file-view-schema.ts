import * as z from 'zod';
import { DOWNLOAD_URL_SECONDS } from './uploads.ts';
import { pageSchema } from './page-schema.ts';

/*
 * The file's response shapes as zod schemas, for the OpenAPI document. The handlers build views
 * (file-view.ts) without them, so no function loads these at its start (bench §4).
 */

/** The file as clients see it: Replicate's file object. */
export const fileViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    content_type: z.string(),
    size: z.int().nonnegative().describe('Bytes.'),
    etag: z.string(),
    checksums: z.object({ sha256: z.string(), md5: z.string() }),
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime().describe('When it is removed: the end of the retention period.'),
    urls: z.object({
      get: z
        .url()
        .describe(
          `Downloads the bytes with no credentials, for ${DOWNLOAD_URL_SECONDS / 60} minutes; usable as a file input.`,
        ),
    }),
  })
  .meta({ id: 'File' });

export type FileView = z.infer<typeof fileViewSchema>;

/** `GET /files`: the caller's files. */
export const fileListSchema = pageSchema(fileViewSchema, 'FileList', 'Newest first; only files that have not expired.');
