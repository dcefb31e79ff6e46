import middy from '@middy/core';
import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, StreamifyHandler } from 'aws-lambda';
import { watchCaller } from './caller.ts';
import { apiDeps } from './deps.ts';
import { logger } from './logger.ts';
import { mergedHeaderValues, singleValuedHeaders } from './headers.ts';
import { errorShape, keepRequestWhenAllowed, rateLimit, requestId, requireAccount } from './middleware.ts';

export type HttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface HttpHandlerOptions {
  /** Requires an account (default: true). */
  readonly authenticated?: boolean;
  /** Answer through Lambda response streaming, for routes that may outlast 29 s (routes.ts). */
  readonly streaming?: boolean;
}

/** Every API handler: lower-cased headers, a request id, one error shape, and (by default) a caller. */
export const httpHandler = (handler: HttpHandler, options: HttpHandlerOptions = {}) => {
  const pipeline = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(
    options.streaming ? { executionMode: executionModeStreamifyResponse } : {},
  )
    .use(mergedHeaderValues())
    .use(httpHeaderNormalizer())
    .use(requestId())
    .use(errorShape())
    .use(singleValuedHeaders());
  if (options.authenticated ?? true) {
    pipeline
      .use(requireAccount())
      .use(
        rateLimit(() => {
          const deps = apiDeps();
          return { limiter: deps.rateLimiter, defaultPerSecond: deps.ratePerSecond, now: () => deps.clock.now() };
        }),
      )
      .use(
        keepRequestWhenAllowed(() => {
          const deps = apiDeps();
          return { log: deps.requestLog, now: () => deps.clock.now() };
        }),
      );
  }
  if (!options.streaming) return pipeline.handler(handler);
  return callerAware(pipeline.handler(handler) as unknown as StreamedHandler);
};

type StreamedHandler = StreamifyHandler<APIGatewayProxyEvent, undefined>;

/**
 * A streamed handler whose caller may leave: the handler sees it (callerGone) and stops waiting,
 * and the broken stream that follows is the caller's doing, not a failure of the function.
 */
const callerAware = (streamed: StreamedHandler) =>
  awslambda.streamifyResponse<APIGatewayProxyEvent, undefined>(async (event, responseStream, context) => {
    const caller = watchCaller(responseStream, context);
    try {
      await streamed(event, responseStream, context);
    } catch (error) {
      if (!caller.gone) throw error;
      logger.debug('the caller went away before the answer was sent', { path: event.path, error });
    }
    return undefined;
  });
