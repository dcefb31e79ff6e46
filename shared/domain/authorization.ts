/** Reads an `Authorization` header: missing, malformed (wrong scheme, empty) or a bearer token. */
export type AuthorizationHeader =
  | { readonly kind: 'missing' }
  | { readonly kind: 'malformed'; readonly reason: string }
  | { readonly kind: 'bearer'; readonly token: string };

export const parseAuthorizationHeader = (header: string | undefined): AuthorizationHeader => {
  if (header === undefined || header.trim() === '') return { kind: 'missing' };
  const match = /^(\S+)\s+(\S+)$/.exec(header.trim());
  if (!match) return { kind: 'malformed', reason: 'expected `Authorization: Bearer <API_TOKEN>`' };
  const [, scheme = '', token = ''] = match;
  if (scheme.toLowerCase() !== 'bearer') {
    return {
      kind: 'malformed',
      reason: `the ${scheme} scheme is not supported; use \`Authorization: Bearer <API_TOKEN>\``,
    };
  }
  return { kind: 'bearer', token };
};
