import { useState } from 'preact/hooks';
import type { ConsoleConfig } from '../../../../shared/api/console-site.ts';
import { chooseNewPassword, signIn, type Session, type SignInStep } from '../session.ts';
import { ErrorNote, formText } from '../ui.tsx';

/** Email and password; then, for an owner an administrator just made, a password of their own. */
export const SignIn = ({ config, onSignedIn }: { config: ConsoleConfig; onSignedIn: (session: Session) => void }) => {
  const [step, setStep] = useState<SignInStep | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget;
    setBusy(true);
    try {
      const next =
        step?.kind === 'new-password'
          ? await chooseNewPassword(config, step.email, step.challengeSession, formText(form, 'new-password'))
          : await signIn(config, formText(form, 'email').trim(), formText(form, 'password'));
      if (next.kind === 'signed-in') onSignedIn(next.session);
      else setStep(next);
      setError(null);
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="sign-in">
      <h1>prognoz</h1>
      <form onSubmit={(event) => void submit(event)} aria-labelledby="sign-in-title">
        <h2 id="sign-in-title">{step?.kind === 'new-password' ? 'Choose your password' : 'Sign in'}</h2>
        {step?.kind === 'new-password' ? (
          <>
            <p>
              Your account was made with a temporary password. Choose your own: at least 12 characters, with a digit.
            </p>
            <label for="new-password">New password</label>
            <input
              id="new-password"
              name="new-password"
              type="password"
              autocomplete="new-password"
              required
              minLength={12}
              autoFocus
            />
          </>
        ) : (
          <>
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="username" required autoFocus />
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required />
          </>
        )}
        <ErrorNote error={error} />
        <button type="submit" disabled={busy}>
          {step?.kind === 'new-password' ? 'Set password and sign in' : 'Sign in'}
        </button>
      </form>
      <p class="muted">
        Account owners sign in here. To call the API from code, create an API token under Account. The API reference is
        at <a href="/docs">/docs</a>.
      </p>
    </main>
  );
};
