import { JwtVerifier } from 'aws-jwt-verify';
import { validateCognitoJwtFields } from 'aws-jwt-verify/cognito-verifier';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { OwnerSignInConfig } from '../config/authorizer.ts';
import { OPERATORS_GROUP } from '../domain/operators.ts';

/** Who a valid sign-in is: their Cognito user id, and whether they are in the operators group. */
export interface OwnerSignIn {
  readonly sub: string;
  readonly operator: boolean;
}

export interface OwnerVerifier {
  /**
   * The owner when the token is an access token of the console's client, signed by the owners'
   * pool and not expired; null for any other token.
   */
  ownerOf(token: string): Promise<OwnerSignIn | null>;
}

/** aws-jwt-verify's own fetcher speaks HTTPS only; an emulator serves its keys over plain HTTP. */
const keysFetcher = {
  fetch: async (uri: string): Promise<ArrayBuffer> => {
    const response = await fetch(uri, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) throw new Error(`the owners' signing keys answered ${response.status}`);
    return response.arrayBuffer();
  },
};

/** Verifies signature, issuer, client, token use and expiry with aws-jwt-verify; keys cached. */
export const cognitoOwnerVerifier = (config: OwnerSignInConfig): OwnerVerifier => {
  const verifier = JwtVerifier.create(
    {
      issuer: config.issuer,
      jwksUri: config.jwksUri,
      // A Cognito access token names its client in `client_id` and has no `aud`.
      audience: null,
      customJwtCheck: ({ payload }) =>
        validateCognitoJwtFields(payload, { tokenUse: 'access', clientId: config.clientId }),
    },
    { jwksCache: new SimpleJwksCache({ fetcher: keysFetcher }) },
  );
  return {
    ownerOf: async (token) => {
      try {
        const payload = await verifier.verify(token);
        if (typeof payload.sub !== 'string') return null;
        // Cognito writes the user's groups into the access token itself: signed, so not forgeable.
        const groups = payload['cognito:groups'];
        return { sub: payload.sub, operator: Array.isArray(groups) && groups.includes(OPERATORS_GROUP) };
      } catch {
        return null;
      }
    },
  };
};

/** Three base64url parts: a JWT, not an API token (those are `pgz_…`). */
export const looksLikeJwt = (token: string): boolean => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
