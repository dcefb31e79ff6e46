import { sameSecret } from '../../shared/domain/constant-time.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { parsePredictionId } from '../../shared/domain/ids.ts';
import { outputFilesKey } from '../../shared/domain/output-files.ts';
import { outputFileKey } from '../../shared/ports/output-store.ts';
import { httpHandler } from './pipeline.ts';
import { streamingModeOf } from './streaming.ts';

/** A claim (a UUID) and a file name as the worker names them (`output-0.png`): nothing else is looked up. */
const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * GET /api/v1/predictions/{id}/output/{claim}/{file}?key=… — a file the model returned, streamed
 * from the outputs bucket with its content type (and a byte range, for players that seek).
 * Opened without a token, as a browser, a webhook receiver or Replicate's `FileOutput` opens it:
 * the key in the URL is the prediction's own. It serves for as long as the prediction's data is kept.
 */
export const handler = httpHandler(
  async (event, _context, deps) => {
    const { id: rawId = '', claim = '', file = '' } = event.pathParameters ?? {};
    const notFound = () =>
      new PrognozError(
        'file_not_found',
        `no output file ${file} of prediction ${rawId} was found, or the key is not its own`,
      );
    const id = parsePredictionId(rawId);
    if (id === null || !SEGMENT.test(claim) || !SEGMENT.test(file)) throw notFound();
    const prediction = await deps.store.get(id);
    const key = event.queryStringParameters?.key ?? '';
    if (!prediction || prediction.streamKey === null || !sameSecret(key, outputFilesKey(prediction.streamKey)))
      throw notFound();
    if ('dataRemoved' in prediction && prediction.dataRemoved) throw notFound();
    const range = event.headers.range;
    const opened = await deps.outputs.openFile(
      outputFileKey(id, claim, file),
      range && /^bytes=\d*-\d*$/.test(range) ? range : undefined,
    );
    if (opened === null) throw notFound();
    return {
      statusCode: opened.contentRange === null ? 200 : 206,
      headers: {
        'content-type': opened.contentType,
        'content-length': String(opened.contentLength),
        'accept-ranges': 'bytes',
        // The URL is the prediction's capability: private caches only.
        'cache-control': 'private, max-age=3600',
        ...(opened.etag === null ? {} : { etag: opened.etag }),
        ...(opened.contentRange === null ? {} : { 'content-range': opened.contentRange }),
      },
      body: opened.body as unknown as string,
    };
  },
  { streaming: streamingModeOf('get-output-file'), authenticated: false },
);
