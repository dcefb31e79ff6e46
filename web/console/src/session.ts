import type { ConsoleConfig } from '../../../shared/api/console-site.ts';

/**
 * An owner's sign-in with Cognito's user pools API, spoken directly (a handful of JSON calls: the
 * SDK would be most of the bundle). Tokens live in sessionStorage: they end with the tab, and no
 * other origin's script can read them (the CSP admits none).
 */

export interface Session {
  readonly email: string;
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Epoch ms at which the access token expires. */
  readonly expiresAt: number;
}

export type SignInStep =
  | { readonly kind: 'signed-in'; readonly session: Session }
  /** Owners made by an administrator sign in first with a temporary password and choose their own. */
  | { readonly kind: 'new-password'; readonly email: string; readonly challengeSession: string };

export class SignInError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const STORAGE_KEY = 'prognoz.session';
/** Refresh a little before expiry, so no request goes out with a token about to lapse. */
const REFRESH_MARGIN_MS = 60_000;

interface AuthenticationResult {
  readonly AccessToken: string;
  readonly ExpiresIn: number;
  readonly RefreshToken?: string;
}

interface InitiateAuthResponse {
  readonly AuthenticationResult?: AuthenticationResult;
  readonly ChallengeName?: string;
  readonly Session?: string;
}

const call = async <T>(config: ConsoleConfig, action: string, body: unknown): Promise<T> => {
  const response = await fetch(config.signIn.endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `AWSCognitoIdentityProviderService.${action}`,
    },
    body: JSON.stringify(body),
  });
  const payload = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const code = (typeof payload.__type === 'string' ? payload.__type.split('#').pop() : undefined) ?? 'SignInFailed';
    const message = typeof payload.message === 'string' ? payload.message : `sign-in failed (HTTP ${response.status})`;
    throw new SignInError(
      code,
      code === 'NotAuthorizedException' || code === 'UserNotFoundException' ? 'Incorrect email or password.' : message,
    );
  }
  return payload as T;
};

const sessionOf = (email: string, result: AuthenticationResult, refreshToken: string, nowMs: number): Session => ({
  email,
  accessToken: result.AccessToken,
  refreshToken: result.RefreshToken ?? refreshToken,
  expiresAt: nowMs + result.ExpiresIn * 1000,
});

const stepOf = (email: string, response: InitiateAuthResponse): SignInStep => {
  if (response.AuthenticationResult)
    return { kind: 'signed-in', session: sessionOf(email, response.AuthenticationResult, '', Date.now()) };
  if (response.ChallengeName === 'NEW_PASSWORD_REQUIRED' && response.Session)
    return { kind: 'new-password', email, challengeSession: response.Session };
  throw new SignInError(
    'UnsupportedChallenge',
    `this account asks for ${response.ChallengeName ?? 'a step'} the console does not support yet`,
  );
};

export const signIn = async (config: ConsoleConfig, email: string, password: string): Promise<SignInStep> =>
  stepOf(
    email,
    await call<InitiateAuthResponse>(config, 'InitiateAuth', {
      AuthFlow: 'USER_PASSWORD_AUTH',
      ClientId: config.signIn.clientId,
      AuthParameters: { USERNAME: email, PASSWORD: password },
    }),
  );

export const chooseNewPassword = async (
  config: ConsoleConfig,
  email: string,
  challengeSession: string,
  password: string,
): Promise<SignInStep> =>
  stepOf(
    email,
    await call<InitiateAuthResponse>(config, 'RespondToAuthChallenge', {
      ChallengeName: 'NEW_PASSWORD_REQUIRED',
      ClientId: config.signIn.clientId,
      Session: challengeSession,
      ChallengeResponses: { USERNAME: email, NEW_PASSWORD: password },
    }),
  );

const refreshed = async (config: ConsoleConfig, session: Session): Promise<Session> => {
  const response = await call<InitiateAuthResponse>(config, 'InitiateAuth', {
    AuthFlow: 'REFRESH_TOKEN_AUTH',
    ClientId: config.signIn.clientId,
    AuthParameters: { REFRESH_TOKEN: session.refreshToken },
  });
  if (!response.AuthenticationResult)
    throw new SignInError('RefreshFailed', 'the sign-in could not be renewed: sign in again');
  return sessionOf(session.email, response.AuthenticationResult, session.refreshToken, Date.now());
};

export const storedSession = (): Session | null => {
  const raw = sessionStorage.getItem(STORAGE_KEY);
  if (raw === null) return null;
  try {
    return JSON.parse(raw) as Session;
  } catch {
    return null;
  }
};

export const storeSession = (session: Session | null): void => {
  if (session === null) sessionStorage.removeItem(STORAGE_KEY);
  else sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
};

/** The access token to send now, renewed first when it is about to expire; null when signed out. */
export const currentAccessToken = async (config: ConsoleConfig): Promise<string | null> => {
  const session = storedSession();
  if (session === null) return null;
  if (session.expiresAt - REFRESH_MARGIN_MS > Date.now()) return session.accessToken;
  try {
    const renewed = await refreshed(config, session);
    storeSession(renewed);
    return renewed.accessToken;
  } catch {
    storeSession(null);
    return null;
  }
};

/** Ends the sign-in here and, as far as Cognito allows, everywhere its refresh token reaches. */
export const signOut = async (config: ConsoleConfig): Promise<void> => {
  const session = storedSession();
  storeSession(null);
  if (session?.refreshToken)
    await call(config, 'RevokeToken', { Token: session.refreshToken, ClientId: config.signIn.clientId }).catch(
      () => undefined,
    );
};
