import * as z from 'zod';
import { parseEnvironment, SHARED_ENV, VALUES, type Environment } from './environment.ts';

/** The variables of the API's authorizer (functions/authorizer.ts). */
export const AUTHORIZER_ENV = {
  tableName: SHARED_ENV.tableName,
  /** The owners' user pool's issuer: owners' access tokens from it are accepted beside API tokens. */
  ownerIssuer: 'PROGNOZ_OWNER_ISSUER',
  /** The console's app client of that pool. */
  ownerClientId: 'PROGNOZ_OWNER_CLIENT_ID',
  /** Where Cognito is reached, when not at AWS (the local runtime's emulator): the SDK's own variable. */
  cognitoEndpoint: 'AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER',
} as const;

export const authorizerEnvironment = z.object({
  [AUTHORIZER_ENV.tableName]: VALUES.name,
  [AUTHORIZER_ENV.ownerIssuer]: VALUES.url.optional(),
  [AUTHORIZER_ENV.ownerClientId]: VALUES.name.optional(),
  [AUTHORIZER_ENV.cognitoEndpoint]: VALUES.url.optional(),
});

export interface OwnerSignInConfig {
  readonly issuer: string;
  /** The owners' user pool: the issuer's last segment. */
  readonly poolId: string;
  readonly clientId: string;
  /** Where the pool's signing keys are published. */
  readonly jwksUri: string;
}

export interface AuthorizerConfig {
  readonly tableName: string;
  /** How owners' tokens are verified; null where no owners' pool is configured. */
  readonly ownerSignIn: OwnerSignInConfig | null;
}

/**
 * The owners' pool's keys are the pool's own on AWS; where a Cognito endpoint is configured (the
 * local runtime's emulator), they are served there, as every other service is reached at its
 * configured endpoint.
 */
const ownerSignInOf = (issuer: string, clientId: string, cognitoEndpoint: string | undefined): OwnerSignInConfig => {
  const poolId = issuer.slice(issuer.lastIndexOf('/') + 1);
  const endpoint = cognitoEndpoint?.replace(/\/+$/, '');
  return {
    issuer,
    poolId,
    clientId,
    jwksUri: endpoint ? `${endpoint}/${poolId}/.well-known/jwks.json` : `${issuer}/.well-known/jwks.json`,
  };
};

export const authorizerConfigFromEnv = (env: Environment): AuthorizerConfig => {
  const parsed = parseEnvironment('authorizer', authorizerEnvironment, env);
  const issuer = parsed[AUTHORIZER_ENV.ownerIssuer];
  const clientId = parsed[AUTHORIZER_ENV.ownerClientId];
  if ((issuer === undefined) !== (clientId === undefined))
    throw new Error(
      `the authorizer's environment is not valid: ${AUTHORIZER_ENV.ownerIssuer} and ${AUTHORIZER_ENV.ownerClientId} go together`,
    );
  return {
    tableName: parsed[AUTHORIZER_ENV.tableName],
    ownerSignIn:
      issuer === undefined || clientId === undefined
        ? null
        : ownerSignInOf(issuer, clientId, parsed[AUTHORIZER_ENV.cognitoEndpoint]),
  };
};
