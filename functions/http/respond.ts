import type { APIGatewayProxyResult } from 'aws-lambda';

/** Responses are always JSON (interface: Requests: the Accept header is ignored). */
export const json = (
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyResult => ({
  statusCode,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
