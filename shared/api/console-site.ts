/**
 * The console (web/console): the pages it answers at fixed addresses, the configuration it reads
 * at start, and the headers it is served with — by the local runtime and by CloudFront alike.
 */

/** Where the console reads its configuration, beside its page. */
export const CONSOLE_CONFIG_PATH = '/config.json';

/** What the console needs to know that its bundle cannot: where owners sign in. */
export interface ConsoleConfig {
  readonly signIn: {
    /** The Cognito user pools endpoint (its JSON API: InitiateAuth, RespondToAuthChallenge). */
    readonly endpoint: string;
    /** The console's app client in the owners' pool (no secret). */
    readonly clientId: string;
  };
}

/** The page addresses (each one serves the console's index.html; the console routes on them). */
export const CONSOLE_PAGE_PATTERN = /^\/(?:|predictions\/[^/]+|models|models\/[^/]+\/[^/]+|account|account\/webhooks)$/;

export const isConsolePage = (path: string): boolean => CONSOLE_PAGE_PATTERN.test(path);

/** The console's static files live under this folder, with content hashes in their names. */
export const CONSOLE_ASSETS_PREFIX = '/assets/';

/**
 * The Content-Security-Policy of every console page: scripts and styles only from the console's
 * own files (no inline script, no eval), requests, images and media only from the API beside it
 * (and the sign-in endpoint), and no framing.
 */
export const consoleContentSecurityPolicy = (signInOrigin: string): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    // A model's output files, played from the API beside the console.
    "media-src 'self'",
    "font-src 'self'",
    `connect-src 'self' ${signInOrigin}`,
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

/** The origin of a region's Cognito endpoint (what the console's CSP lets it connect to on AWS). */
export const cognitoOriginOf = (region: string): string => `https://cognito-idp.${region}.amazonaws.com`;

/** The Cognito endpoint of a region (the console's sign-in endpoint on AWS). */
export const cognitoEndpointOf = (region: string): string => `${cognitoOriginOf(region)}/`;

/** The security headers of the console's responses (CloudFront adds HSTS on AWS, where it is HTTPS). */
export const consoleSecurityHeaders = (signInOrigin: string): Readonly<Record<string, string>> => ({
  'content-security-policy': consoleContentSecurityPolicy(signInOrigin),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
});
