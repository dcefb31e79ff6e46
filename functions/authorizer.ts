import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { dynamoAccountStore, type AccountStore } from '../shared/adapters/account-store.ts';
import { tableNameFromEnv } from '../shared/config.ts';
import { parseAuthorizationHeader } from '../shared/domain/authorization.ts';
import { looksLikeToken } from '../shared/domain/tokens.ts';
import type { AuthorizerContext } from './http/middleware.ts';

let accounts: AccountStore | undefined;

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

/** Resolves `Authorization: Bearer <token>` to an account; the reason when it cannot (see AuthorizerContext). */
export const authorize = async (event: APIGatewayRequestAuthorizerEvent, store: AccountStore): Promise<APIGatewayAuthorizerResult> => {
  const header = parseAuthorizationHeader(headerOf(event, 'authorization'));
  const deny = (authError: NonNullable<AuthorizerContext['authError']>, authMessage: string) =>
    policyFor(event.methodArn, 'anonymous', { authError, authMessage });
  if (header.kind === 'missing') return deny('missing_token', 'an API token is required: `Authorization: Bearer <API_TOKEN>`');
  if (header.kind === 'malformed') return deny('malformed_authorization', `the Authorization header is malformed: ${header.reason}`);
  const owner = looksLikeToken(header.token) ? await store.accountForToken(header.token) : null;
  if (owner === null) return deny('invalid_token', 'the API token is not valid');
  return policyFor(event.methodArn, owner.account, {
    account: owner.account,
    tokenId: owner.tokenId,
    ...(owner.ratePerSecond !== null ? { ratePerSecond: owner.ratePerSecond } : {}),
  });
};

export const handler = (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> =>
  authorize(event, (accounts ??= dynamoAccountStore(tableNameFromEnv())));
