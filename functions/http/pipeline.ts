import middy from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { errorShape, requestId, requireAccount } from './middleware.ts';

export type HttpHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/** Every API handler: lower-cased headers, a request id, one error shape, and (by default) a caller. */
export const httpHandler = (handler: HttpHandler, options: { authenticated: boolean } = { authenticated: true }) => {
  const pipeline = middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(httpHeaderNormalizer())
    .use(requestId())
    .use(errorShape());
  if (options.authenticated) pipeline.use(requireAccount());
  return pipeline.handler(handler);
};
