import * as z from '../zod-mini.ts';
import { defineEnvironment, SHARED, variable, VALUES, type Environment } from './environment.ts';

/** The environment of the API's authorizer (functions/authorizer.ts). */
export const authorizerEnvironment = defineEnvironment('authorizer', {
  tableName: SHARED.tableName,
  /** The owners' user pool's issuer: owners' access tokens from it are accepted beside API tokens. */
  ownerIssuer: variable('PROGNOZ_OWNER_ISSUER', z.optional(VALUES.url)),
  /** The console's app client of that pool. */
  ownerClientId: variable('PROGNOZ_OWNER_CLIENT_ID', z.optional(VALUES.name)),
  /** Where Cognito is reached, when not at AWS (the local runtime's emulator): the SDK's own variable. */
  cognitoEndpoint: variable('AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER', z.optional(VALUES.url)),
});

export const AUTHORIZER_ENV = authorizerEnvironment.names;

export interface OwnerSignInConfig {
  readonly issuer: string;
  /** The owners' user pool: the issuer's last segment. */
  readonly poolId: string;
  readonly clientId: string;
  /** Where the pool's signing keys are published. */
  readonly jwksUri: string;
}

export interface AuthorizerConfig extends Pick<ReturnType<typeof authorizerEnvironment.parse>, 'tableName'> {
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
  const { tableName, ownerIssuer, ownerClientId, cognitoEndpoint } = authorizerEnvironment.parse(env);
  if ((ownerIssuer === undefined) !== (ownerClientId === undefined))
    throw new Error(
      `the authorizer's environment is not valid: ${AUTHORIZER_ENV.ownerIssuer} and ${AUTHORIZER_ENV.ownerClientId} go together`,
    );
  return {
    tableName,
    ownerSignIn:
      ownerIssuer === undefined || ownerClientId === undefined
        ? null
        : ownerSignInOf(ownerIssuer, ownerClientId, cognitoEndpoint),
  };
};
