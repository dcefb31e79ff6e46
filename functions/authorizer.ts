import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { dynamoAccountStore } from '../shared/adapters/account-store.ts';
import { type AccountStore } from '../shared/ports/account-store.ts';
import { cognitoOwnerVerifier, looksLikeJwt, type OwnerVerifier } from '../shared/adapters/owner-verifier.ts';
import { authorizerConfigFromEnv } from '../shared/config/authorizer.ts';
import { parseAuthorizationHeader } from '../shared/domain/authorization.ts';
import { systemClock, type Clock } from '../shared/domain/clock.ts';
import { looksLikeToken, tokenUseIsStale } from '../shared/domain/tokens.ts';
import { serviceLogger } from './service-logger.ts';
import { lambdaEntry, once } from './lambda-entry.ts';
import type { AuthorizerContext } from './http/middleware.ts';

const logger = serviceLogger('authorizer');

const headerOf = (event: APIGatewayRequestAuthorizerEvent, name: string): string | undefined => {
  const entry = Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === name);
  return entry?.[1] ?? undefined;
};

/** Allows every route of the stage, so one cached answer per token serves them all. */
const policyFor = (methodArn: string, principalId: string, context: AuthorizerContext): APIGatewayAuthorizerResult => {
  const [arnPrefix = methodArn, stage = '*'] = methodArn.split('/');
  return {
    principalId,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${arnPrefix}/${stage}/*` }],
    },
    context: { ...context },
  };
};

/**
 * Notes the token's use for its owner's token list, when the recorded one is stale. A token that
 * works is never refused for want of this write: a failure is logged and the request goes on.
 */
const recordUse = async (
  store: AccountStore,
  token: string,
  lastUsedMs: number | null,
  nowMs: number,
): Promise<void> => {
  if (!tokenUseIsStale(lastUsedMs, nowMs)) return;
  try {
    await store.recordTokenUse(token, nowMs);
  } catch (error) {
    logger.warn("could not record an API token's use", {
      error: error instanceof Error ? error.message : String(error),
    });
  }
};

/**
 * Resolves `Authorization: Bearer <token>` to an account: an API token, or an account owner's
 * access token from the owners' user pool (the console); the reason when it cannot (see AuthorizerContext).
 */
export const authorize = async (
  event: APIGatewayRequestAuthorizerEvent,
  store: AccountStore,
  verifier: OwnerVerifier | null,
  clock: Clock = systemClock,
): Promise<APIGatewayAuthorizerResult> => {
  const header = parseAuthorizationHeader(headerOf(event, 'authorization'));
  const deny = (authError: NonNullable<AuthorizerContext['authError']>, authMessage: string) =>
    policyFor(event.methodArn, 'anonymous', { authError, authMessage });
  if (header.kind === 'missing')
    return deny('missing_token', 'an API token is required: `Authorization: Bearer <API_TOKEN>`');
  if (header.kind === 'malformed')
    return deny('malformed_authorization', `the Authorization header is malformed: ${header.reason}`);
  if (looksLikeJwt(header.token)) {
    // An account owner signed in to the console (interface: Owners).
    const signIn = verifier === null ? null : await verifier.ownerOf(header.token);
    const signedIn = signIn === null ? null : await store.accountForOwner(signIn.sub);
    if (signIn === null || signedIn === null)
      return deny('invalid_token', "the sign-in is not valid (expired, or not an account owner's): sign in again");
    return policyFor(event.methodArn, signedIn.account, {
      account: signedIn.account,
      tokenId: `owner:${signIn.sub}`,
      owner: signIn.sub,
      ...(signIn.operator ? { operator: 'true' } : {}),
      ...(signedIn.ratePerSecond !== null ? { ratePerSecond: signedIn.ratePerSecond } : {}),
    });
  }
  const owner = looksLikeToken(header.token) ? await store.accountForToken(header.token) : null;
  if (owner === null) return deny('invalid_token', 'the API token is not valid');
  await recordUse(store, header.token, owner.lastUsedMs, clock.now());
  return policyFor(event.methodArn, owner.account, {
    account: owner.account,
    tokenId: owner.tokenId,
    ...(owner.ratePerSecond !== null ? { ratePerSecond: owner.ratePerSecond } : {}),
  });
};

export const handler = lambdaEntry((env) => {
  const adapters = once(() => {
    const config = authorizerConfigFromEnv(env);
    return {
      accounts: dynamoAccountStore(config.tableName),
      verifier: config.ownerSignIn === null ? null : cognitoOwnerVerifier(config.ownerSignIn),
    };
  });
  return async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    const { accounts, verifier } = adapters();
    return authorize(event, accounts, verifier, systemClock);
  };
});
