import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The API's base address as the caller reached it (`https://host/prod/api/v1`), for the absolute
 * links in prediction objects and pages: API Gateway's Host and X-Forwarded-Proto, and the stage
 * prefix that its default domain puts before the resource path (a custom domain has none).
 */
export const apiBaseOf = (event: APIGatewayProxyEvent): string => {
  const headers = event.headers as Record<string, string | undefined>;
  const proto = headers['x-forwarded-proto'] ?? 'https';
  const host = headers.host ?? event.requestContext.domainName ?? 'localhost';
  const called = event.requestContext.path ?? event.path;
  const prefix = called.endsWith(event.path) ? called.slice(0, called.length - event.path.length) : '';
  return `${proto}://${host}${prefix}/api/v1`;
};
