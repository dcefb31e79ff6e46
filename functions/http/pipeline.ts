import middy from '@middy/core';
import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { apiDeps } from './deps.ts';
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
    .use(httpHeaderNormalizer())
    .use(requestId())
    .use(errorShape());
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
  return pipeline.handler(handler);
};
