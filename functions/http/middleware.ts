import { randomUUID } from 'node:crypto';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { REQUEST_ID_FORMAT } from '../../shared/api/request-id.ts';
import { PrognozError, isPrognozError } from '../../shared/domain/errors.ts';
import { asAccountId, type AccountId } from '../../shared/domain/ids.ts';
import { OPERATORS_GROUP } from '../../shared/domain/operators.ts';
import type { RateLimiter } from '../../shared/ports/rate-limiter.ts';
import type { RequestLog } from '../../shared/ports/request-log.ts';
import { errorResponse } from './error-response.ts';
import { logger } from './logger.ts';

type HttpMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult>;
type HttpRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult>;

/** What the pipeline settles for one request, kept in middy's per-request `internal`: the event stays as it came. */
interface RequestState {
  'prognoz.requestId'?: string;
}

const stateOf = (request: HttpRequest): RequestState => request.internal;

/** The request id of this request: the caller's `x-request-id` if usable, else a new UUID. */
export const requestIdOf = (request: HttpRequest): string => stateOf(request)['prognoz.requestId'] ?? 'unknown';

/** Settles the request id before anything else and echoes it on every response. */
export const requestId = (): HttpMiddleware => ({
  before: (request) => {
    const given = request.event.headers['x-request-id'];
    stateOf(request)['prognoz.requestId'] = given !== undefined && REQUEST_ID_FORMAT.test(given) ? given : randomUUID();
  },
  after: (request) => {
    if (request.response)
      request.response.headers = { ...request.response.headers, 'x-request-id': requestIdOf(request) };
  },
});

/** Turns every thrown error into the one error shape; unknown ones become a logged 500. */
export const errorShape = (): HttpMiddleware => ({
  onError: (request) => {
    const id = requestIdOf(request);
    if (isPrognozError(request.error)) {
      request.response = errorResponse(request.error, id);
      return;
    }
    logger.error('unhandled error', { requestId: id, error: request.error ?? undefined });
    request.response = errorResponse(
      new PrognozError(
        'internal_error',
        'the service failed to handle this request; retry later and quote the request id',
      ),
      id,
    );
  },
});

/**
 * The Lambda authorizer never denies: it passes either the account or the reason it found none,
 * so that 400 and 401 come out in the same error shape as everything else.
 */
export interface AuthorizerContext {
  readonly account?: string;
  readonly tokenId?: string;
  /** Set when an account owner signed in (the console) rather than an API token: their user id. */
  readonly owner?: string;
  /** 'true' when that owner is in the owners' pool's operators group (OPERATORS_GROUP). */
  readonly operator?: string;
  /** API Gateway passes context values as strings or numbers. */
  readonly ratePerSecond?: number | string;
  readonly authError?: 'missing_token' | 'malformed_authorization' | 'invalid_token';
  readonly authMessage?: string;
}

export const requireAccount = (): HttpMiddleware => ({
  before: ({ event }) => {
    accountOf(event);
  },
});

/**
 * 429 when the token, or its account, makes requests faster than its rate (per second: the
 * account's own, else the API's configured rate, API_ENV.ratePerSecond; the account as a whole gets twice that).
 */
export const rateLimit = (
  limiter: () => { limiter: RateLimiter; defaultPerSecond: number; now: () => number },
): HttpMiddleware => ({
  before: async ({ event }) => {
    const context = (event.requestContext.authorizer ?? {}) as AuthorizerContext;
    const { limiter: counters, defaultPerSecond, now } = limiter();
    const perSecond = Number(context.ratePerSecond ?? defaultPerSecond) || defaultPerSecond;
    const decision = await counters.take(
      `ACCOUNT#${accountOf(event)}`,
      [
        { key: `TOKEN#${context.tokenId ?? 'unknown'}`, limit: perSecond },
        { key: 'ACCOUNT', limit: perSecond * 2 },
      ],
      now(),
    );
    if (!decision.allowed) {
      throw new PrognozError(
        'rate_limited',
        `too many requests: at most ${perSecond} a second; retry after ${decision.retryAfterSeconds} s`,
        {
          retryAfterSeconds: decision.retryAfterSeconds,
        },
      );
    }
  },
});

/** With `x-log-request: true`, keeps the request for diagnostics under its request id (a week). */
export const keepRequestWhenAllowed = (requestLog: () => { log: RequestLog; now: () => number }): HttpMiddleware => ({
  before: async (request) => {
    const { event } = request;
    if (event.headers['x-log-request']?.trim().toLowerCase() !== 'true') return;
    const { log, now } = requestLog();
    const headers = Object.fromEntries(
      Object.entries(event.headers).filter(([name]) => name !== 'authorization'),
    ) as Record<string, string>;
    await log.keep(
      {
        requestId: requestIdOf(request),
        account: accountOf(event),
        method: event.httpMethod,
        path: event.path,
        headers,
        body: event.body,
      },
      now(),
    );
  },
});

/**
 * The account of an owner signed in to the console; 403 for an API token, whose holder may run
 * predictions but not manage the account (a leaked token must not mint more, nor raise the limit).
 * `what` names what the request would do, for the error message.
 */
export const ownerAccountOf = (event: APIGatewayProxyEvent, what = 'list, create or revoke API tokens'): AccountId => {
  const account = accountOf(event);
  const context = (event.requestContext.authorizer ?? {}) as AuthorizerContext;
  if (typeof context.owner !== 'string' || context.owner === '') {
    throw new PrognozError(
      'owner_sign_in_required',
      `only the account's owner, signed in to the console, may ${what}; an API token cannot`,
    );
  }
  return account;
};

/**
 * The owner's user id and account when an operator (an owner in the operators group, signed in)
 * makes the request; 403 for anyone else, an API token first of all: resizing a fleet spends every
 * account's money and capacity, not one account's.
 */
export const operatorOf = (event: APIGatewayProxyEvent, what: string): { sub: string; account: AccountId } => {
  const account = accountOf(event);
  const context = (event.requestContext.authorizer ?? {}) as AuthorizerContext;
  if (typeof context.owner !== 'string' || context.owner === '' || context.operator !== 'true') {
    throw new PrognozError(
      'operator_required',
      `only an operator (an owner in the ${OPERATORS_GROUP} group, signed in) may ${what}; an account's API token cannot`,
    );
  }
  return { sub: context.owner, account };
};

export const accountOf = (event: APIGatewayProxyEvent): AccountId => {
  const context = (event.requestContext.authorizer ?? {}) as AuthorizerContext;
  if (typeof context.account === 'string' && context.account !== '') return asAccountId(context.account);
  throw new PrognozError(
    context.authError ?? 'missing_token',
    context.authMessage ?? 'an API token is required: `Authorization: Bearer <API_TOKEN>`',
  );
};
