import { createHash, randomBytes } from 'node:crypto';

/** API tokens look like `pgz_<43 url-safe chars>`; the prefix makes leaked tokens easy to scan for. */
export const TOKEN_PREFIX = 'pgz_';
/** Any value a Bearer header may carry (RFC 6750 token68), of a sane length. */
const TOKEN_SHAPE = /^[A-Za-z0-9._~+/=-]{8,512}$/;

export const generateToken = (random: (size: number) => Buffer = randomBytes): string =>
  `${TOKEN_PREFIX}${random(32).toString('base64url')}`;

/**
 * A webhook signing secret, shown to its account owner and used as is (spec §6.4). The
 * `whsec_<base64>` form is the one Standard Webhooks verifiers expect.
 */
export const generateSigningSecret = (random: (size: number) => Buffer = randomBytes): string =>
  `whsec_${random(32).toString('base64')}`;

/** Only this hash is ever stored; the token itself never is. */
export const hashToken = (token: string): string => createHash('sha256').update(token, 'utf8').digest('hex');

/** Cheap shape check before any database lookup. */
export const looksLikeToken = (candidate: string): boolean => TOKEN_SHAPE.test(candidate);
