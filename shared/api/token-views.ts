import * as z from 'zod';
import type { TokenSummary } from '../ports/account-store.ts';
import { TOKEN_USE_RECORDED_EVERY_MS } from '../domain/tokens.ts';

/** An API token as its owner sees it listed: never the token, only its first characters. */
export const tokenViewSchema = z
  .object({
    id: z.string(),
    name: z.string().nullable().describe('What the owner called it; null for tokens made by the admin CLI.'),
    hint: z.string().describe('The first characters of the token, to tell it apart (`pgz_AbC…`).'),
    created_at: z.string(),
    revoked: z.boolean(),
    last_used_at: z.iso
      .datetime()
      .nullable()
      .describe(
        `When an API request last used it, to within minutes: a use is recorded at most every ${TOKEN_USE_RECORDED_EVERY_MS / 60_000} minutes, and on AWS the authorizer's answer for a token is cached 60 s (requests answered from that cache record nothing). null: never used.`,
      ),
  })
  .meta({ id: 'ApiToken' });

/** `POST /account/tokens`: the new token, shown this once. */
export const createdTokenSchema = tokenViewSchema
  .extend({ token: z.string().describe('The token itself: shown this once, never stored (only its SHA-256 is).') })
  .meta({ id: 'CreatedApiToken' });

export const tokenListSchema = z.object({ results: z.array(tokenViewSchema) }).meta({ id: 'ApiTokenList' });

/** The body of `POST /account/tokens`. */
export const createTokenBodySchema = z
  .object({ name: z.string().trim().min(1).max(64).describe('What the token is for, to recognise it in the list.') })
  .strict()
  .meta({ id: 'CreateApiToken' });

export const tokenView = (token: TokenSummary): z.infer<typeof tokenViewSchema> => ({
  id: token.id,
  name: token.name,
  hint: token.hint,
  created_at: token.createdAt,
  revoked: token.revoked,
  last_used_at: token.lastUsedAt,
});
