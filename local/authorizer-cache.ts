import { resourcesOfType, type CfnTemplate } from './template.ts';

/** How API Gateway caches the authorizer's answers, as the template configures the authorizer. */
export interface AuthorizerCaching {
  /** How long an answer is reused; 0: never cached. */
  readonly ttlSeconds: number;
  /** The request headers whose values, together, key the cache (the authorizer's identity sources). */
  readonly identityHeaders: readonly string[];
}

/** CloudFormation's AuthorizerResultTtlInSeconds when the template leaves it out. */
const DEFAULT_TTL_SECONDS = 300;
const HEADER_SOURCE = 'method.request.header.';
/** Answers kept at most: identities that each ask once (hostile clients) cannot grow it without end. */
const MAX_ENTRIES = 10_000;

/** The caching of the template's one API Gateway authorizer. */
export const authorizerCachingOf = (template: CfnTemplate): AuthorizerCaching => {
  const authorizers = resourcesOfType(template, 'AWS::ApiGateway::Authorizer');
  const [only] = authorizers;
  if (!only || authorizers.length > 1)
    throw new Error(`the local API front runs one authorizer; the template declares ${authorizers.length}`);
  const [logicalId, authorizer] = only;
  const props = authorizer.Properties ?? {};
  const ttl = props.AuthorizerResultTtlInSeconds ?? DEFAULT_TTL_SECONDS;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 0)
    throw new Error(
      `${logicalId}: AuthorizerResultTtlInSeconds is not a whole number of seconds: ${JSON.stringify(ttl)}`,
    );
  const sources = typeof props.IdentitySource === 'string' ? props.IdentitySource.split(',') : [];
  const identityHeaders = sources.map((source) => {
    const trimmed = source.trim();
    if (!trimmed.startsWith(HEADER_SOURCE))
      throw new Error(`${logicalId}: the local API front keys its cache by headers only, not ${trimmed}`);
    return trimmed.slice(HEADER_SOURCE.length).toLowerCase();
  });
  if (ttl > 0 && identityHeaders.length === 0)
    throw new Error(`${logicalId}: a cached authorizer needs an identity source to key its cache by`);
  return { ttlSeconds: ttl, identityHeaders };
};

/**
 * The request's identity, as the cache keys it: the identity headers' values (lower-case names, as
 * the authorizer's event carries them), or null when one is missing or empty. API Gateway never
 * caches such a request's answer.
 */
export const identityOf = (
  caching: AuthorizerCaching,
  headers: Readonly<Record<string, string | undefined>>,
): string | null => {
  const values = caching.identityHeaders.map((name) => headers[name]);
  return values.every((value) => value !== undefined && value !== '') ? JSON.stringify(values) : null;
};

export interface AuthorizerCache<T> {
  /** The answer cached for `identity` while it lasts; else `ask`'s, cached (null: asked every time). */
  answer(identity: string | null, ask: () => Promise<T>): Promise<T>;
  /** Drops every cached answer, as API Gateway's FlushStageAuthorizersCache does; how many there were. */
  flush(): number;
}

/**
 * API Gateway's authorizer cache: whatever the authorizer answered for an identity (allow or deny:
 * the policy is cached) is its answer for `ttlSeconds`; a failed call is not cached. Callers that
 * arrive while the answer is being asked wait for that answer.
 */
export const authorizerCache = <T>(ttlSeconds: number, now: () => number = Date.now): AuthorizerCache<T> => {
  const entries = new Map<string, { readonly until: number; readonly answer: Promise<T> }>();
  return {
    answer(identity, ask) {
      if (identity === null || ttlSeconds === 0) return ask();
      const at = now();
      const cached = entries.get(identity);
      if (cached && at < cached.until) return cached.answer;
      // Re-inserted last: the map's order stays the order of expiry, and the oldest go first.
      entries.delete(identity);
      if (entries.size >= MAX_ENTRIES) {
        const [oldest] = entries.keys();
        if (oldest !== undefined) entries.delete(oldest);
      }
      const entry = { until: at + ttlSeconds * 1000, answer: ask() };
      entries.set(identity, entry);
      entry.answer.catch(() => {
        if (entries.get(identity) === entry) entries.delete(identity);
      });
      return entry.answer;
    },
    flush() {
      const count = entries.size;
      entries.clear();
      return count;
    },
  };
};
