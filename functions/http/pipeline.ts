import middy from '@middy/core';
import type { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context, StreamifyHandler } from 'aws-lambda';
import { apiConfigFromEnv } from '../../shared/config/api.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { lambdaEntry, once } from '../lambda-entry.ts';
import { processModelCatalog } from '../model-catalog.ts';
import { watchCaller } from './caller.ts';
import { apiDeps, type ApiDeps } from './deps.ts';
import { logger } from './logger.ts';
import { mergedHeaderValues, singleValuedHeaders } from './headers.ts';
import { errorShape, keepRequestWhenAllowed, rateLimit, requestId, requireAccount } from './middleware.ts';

export type HttpHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
  deps: ApiDeps,
) => Promise<APIGatewayProxyResult>;

type PlainHttpHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface HttpHandlerOptions {
  /** Requires an account (default: true). */
  readonly authenticated?: boolean;
  /**
   * For a route that answers through Lambda response streaming, as it may outlast 29 s, middy's
   * streaming mode (streaming.ts: streamingModeOf).
   */
  readonly streaming?: StreamingMode | null;
}

export type StreamingMode = typeof executionModeStreamifyResponse;

/**
 * Every API handler: lower-cased headers, a request id, one error shape, and (by default) a caller.
 * Its adapters are made from its function's configuration (shared/config/api.ts) at the first request.
 */
export const httpHandler = (handler: HttpHandler, options: HttpHandlerOptions = {}) =>
  lambdaEntry((env) => {
    const deps = once(() => {
      const catalog = processModelCatalog();
      return apiDeps(apiConfigFromEnv(env, catalog), systemClock, catalog);
    });
    return pipelineOf((event, context) => handler(event, context, deps()), options, deps);
  });

/** A handler that needs nothing of the deployment, and no account (the unmatched route, the OpenAPI document). */
export const unconfiguredHttpHandler = (handler: PlainHttpHandler) =>
  lambdaEntry(() => pipelineOf(handler, { authenticated: false }, null));

const pipelineOf = (handler: PlainHttpHandler, options: HttpHandlerOptions, deps: (() => ApiDeps) | null) => {
  const pipeline = middy<APIGatewayProxyEvent, APIGatewayProxyResult>(
    options.streaming ? { executionMode: options.streaming } : {},
  )
    .use(mergedHeaderValues())
    .use(httpHeaderNormalizer())
    .use(requestId())
    .use(errorShape())
    .use(singleValuedHeaders());
  if (options.authenticated ?? true) {
    if (deps === null) throw new Error('an authenticated route needs its configuration');
    pipeline
      .use(requireAccount())
      .use(
        rateLimit(() => {
          const { rateLimiter, ratePerSecond, clock } = deps();
          return { limiter: rateLimiter, defaultPerSecond: ratePerSecond, now: () => clock.now() };
        }),
      )
      .use(
        keepRequestWhenAllowed(() => {
          const { requestLog, clock } = deps();
          return { log: requestLog, now: () => clock.now() };
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
