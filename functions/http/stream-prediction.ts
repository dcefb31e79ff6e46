import { Readable } from 'node:stream';
import type { Context } from 'aws-lambda';
import { eventsSince, formatEvent, streamStart } from '../../shared/api/prediction-events.ts';
import { withStreamedFileUrls } from '../../shared/api/output-urls.ts';
import { outputOf } from '../../shared/api/prediction-view.ts';
import { sameSecret } from '../../shared/domain/constant-time.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { parsePredictionId } from '../../shared/domain/ids.ts';
import type { Prediction } from '../../shared/domain/prediction.ts';
import { callerGone } from './caller.ts';
import { httpHandler } from './pipeline.ts';
import { streamingModeOf } from './streaming.ts';

/** How often a stream looks at its prediction: each look is one consistent read. */
const LOOK_EVERY_MS = 500;
/** A comment line this often keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;
/** The stream ends this long before the function must, so that it ends cleanly (clients reconnect). */
const END_MARGIN_MS = 5_000;

/**
 * GET /api/v1/predictions/{id}/stream?key=… — server-sent events as Replicate's stream sends
 * them: `logs` lines and `output` pieces as the model makes them, then `error` and `done`. Opened
 * without a token (Replicate's clients send none): the key in the URL is the prediction's own.
 */
export const handler = httpHandler(
  async (event, context: Context, deps) => {
    const raw = event.pathParameters?.id ?? '';
    const notFound = () =>
      new PrognozError('prediction_not_found', `no prediction ${raw} was found, or the stream key is not its own`);
    const id = parsePredictionId(raw);
    const first = id === null ? null : await deps.store.get(id);
    const key = event.queryStringParameters?.key ?? '';
    if (!first || first.streamKey === null || !sameSecret(key, first.streamKey)) throw notFound();
    const predictionId = first.id;
    const endBy = deps.clock.now() + Math.max(1000, context.getRemainingTimeInMillis() - END_MARGIN_MS);
    // A caller who left is not read for: the stream stops looking at the table at once.
    const gone = callerGone(context);

    async function* events(): AsyncGenerator<string> {
      let prediction: Prediction | null = first;
      let position = streamStart();
      let sent = 0;
      let quietSince = deps.clock.now();
      while (prediction !== null && !gone.aborted) {
        const step = eventsSince(
          withStreamedFileUrls(prediction),
          position,
          prediction.status === 'succeeded' ? await outputOf(prediction, deps.outputs) : undefined,
        );
        position = step.position;
        for (const next of step.events) yield formatEvent(next, ++sent);
        if (step.done || deps.clock.now() >= endBy) return;
        if (step.events.length > 0) quietSince = deps.clock.now();
        else if (deps.clock.now() - quietSince >= KEEPALIVE_MS) {
          yield ': keepalive\n\n';
          quietSince = deps.clock.now();
        }
        await deps.sleep(LOOK_EVERY_MS, gone);
        if (gone.aborted) return;
        prediction = await deps.store.get(predictionId);
      }
    }

    return {
      statusCode: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' },
      body: Readable.from(events()) as unknown as string,
    };
  },
  { streaming: streamingModeOf('stream-prediction'), authenticated: false },
);
