import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { parseWaitPreference, resolveWebhook } from '../../functions/http/request-options.ts';
import { matchRoute } from '../../shared/api/routes.ts';
import { parseAuthorizationHeader } from '../../shared/domain/authorization.ts';
import { checkWebhookUrl } from '../../shared/domain/webhook-url.ts';
import { codeOf } from '../support/error-code.ts';

describe('Prefer and Request-Timeout', () => {
  it('default to async with a 30 s sync wait', () => {
    expect(parseWaitPreference({})).toEqual({ sync: false, timeoutMs: 30_000 });
  });

  it('read SYNC, wait and wait=N in any case, and ignore unknown preferences', () => {
    expect(parseWaitPreference({ prefer: 'SYNC' }).sync).toBe(true);
    expect(parseWaitPreference({ prefer: 'Wait' }).sync).toBe(true);
    expect(parseWaitPreference({ prefer: 'wait=5' })).toEqual({ sync: true, timeoutMs: 5000 });
    expect(parseWaitPreference({ prefer: 'respond-async' }).sync).toBe(false);
    expect(parseWaitPreference({ prefer: 'ASYNC' }).sync).toBe(false);
  });

  it('take Request-Timeout in whole seconds from 1 to 60', () => {
    expect(parseWaitPreference({ prefer: 'sync', 'request-timeout': '1' }).timeoutMs).toBe(1000);
    expect(parseWaitPreference({ prefer: 'sync', 'request-timeout': '60' }).timeoutMs).toBe(60_000);
    for (const bad of ['0', '61', '1.5', 'x', '']) {
      expect(codeOf(() => parseWaitPreference({ 'request-timeout': bad }))).toBe('invalid_header');
    }
  });
});

/** An event with these headers, each a list of the values it was sent with (as API Gateway's multiValueHeaders). */
const withHeaders = (headers: Record<string, string[]>) =>
  ({
    headers: Object.fromEntries(Object.entries(headers).map(([name, values]) => [name, values.at(-1)])),
    multiValueHeaders: headers,
  }) as unknown as APIGatewayProxyEvent;

describe('webhook registration', () => {
  const local = { allowLoopback: true };
  const cloud = { allowLoopback: false };

  it('accepts any one of the three variants, or the same address twice', () => {
    const url = 'https://example.com/hook';
    expect(resolveWebhook(withHeaders({ 'webhook-url': [url] }), undefined, cloud)).toBe(url);
    expect(resolveWebhook(withHeaders({ 'x-webhook-url': [url] }), undefined, cloud)).toBe(url);
    expect(resolveWebhook(withHeaders({}), url, cloud)).toBe(url);
    expect(resolveWebhook(withHeaders({ 'webhook-url': [url] }), url, cloud)).toBe(url);
    expect(resolveWebhook(withHeaders({ 'webhook-url': [url, url] }), undefined, cloud)).toBe(url);
    expect(resolveWebhook(withHeaders({}), undefined, cloud)).toBeNull();
  });

  it('rejects two different addresses with 400 and bad ones with 422', () => {
    const [a, b] = ['https://a.example', 'https://b.example'];
    expect(codeOf(() => resolveWebhook(withHeaders({ 'webhook-url': [a] }), b, cloud))).toBe('webhook_conflict');
    // One header sent twice is two addresses, not one address with a comma in it.
    expect(codeOf(() => resolveWebhook(withHeaders({ 'webhook-url': [a, b] }), undefined, cloud))).toBe(
      'webhook_conflict',
    );
    expect(codeOf(() => resolveWebhook(withHeaders({ 'x-webhook-url': [a, b] }), undefined, cloud))).toBe(
      'webhook_conflict',
    );
    expect(codeOf(() => resolveWebhook(withHeaders({}), 'http://example.com/hook', cloud))).toBe('invalid_input');
    expect(codeOf(() => resolveWebhook(withHeaders({}), 42, cloud))).toBe('invalid_input');
  });

  it('allows plain http to loopback only in the local runtime', () => {
    expect(checkWebhookUrl('http://127.0.0.1:9000/hook', local).ok).toBe(true);
    expect(checkWebhookUrl('http://localhost:9000/hook', local).ok).toBe(true);
    expect(checkWebhookUrl('http://127.0.0.1:9000/hook', cloud).ok).toBe(false);
    expect(checkWebhookUrl('http://example.com/hook', local).ok).toBe(false);
    expect(checkWebhookUrl('data:text/plain,hi', local).ok).toBe(false);
  });
});

describe('Authorization header', () => {
  it('tells missing, malformed and bearer apart', () => {
    expect(parseAuthorizationHeader(undefined)).toEqual({ kind: 'missing' });
    expect(parseAuthorizationHeader('  ')).toEqual({ kind: 'missing' });
    expect(parseAuthorizationHeader('Token abc').kind).toBe('malformed');
    expect(parseAuthorizationHeader('Bearer').kind).toBe('malformed');
    expect(parseAuthorizationHeader('Bearer a b').kind).toBe('malformed');
    expect(parseAuthorizationHeader('bearer abc')).toEqual({ kind: 'bearer', token: 'abc' });
  });
});

describe('routes', () => {
  it('prefer literal segments over parameters, as API Gateway does', () => {
    const match = matchRoute('GET', '/api/v1/predictions/abc');
    expect(match).toMatchObject({ kind: 'found', route: { handler: 'get-prediction' }, pathParameters: { id: 'abc' } });
    expect(matchRoute('POST', '/api/v1/predictions/abc')).toEqual({ kind: 'method_not_allowed', allow: ['GET'] });
    expect(matchRoute('POST', '/api/v1/prognoz/echo')).toMatchObject({
      kind: 'found',
      pathParameters: { company: 'prognoz', model: 'echo' },
    });
    expect(matchRoute('DELETE', '/api/v1/prognoz/echo')).toEqual({
      kind: 'method_not_allowed',
      allow: ['GET', 'POST'],
    });
    expect(matchRoute('GET', '/api/v2/x')).toEqual({ kind: 'not_found' });
  });
});
