import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import type { ConsoleConfig } from '../../../shared/api/console-site.ts';
import { onSignedOut } from './api.ts';
import { AccountPage } from './pages/account.tsx';
import { ModelPage } from './pages/model.tsx';
import { ModelsPage } from './pages/models.tsx';
import { PredictionPage } from './pages/prediction.tsx';
import { PredictionsPage } from './pages/predictions.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { signOut, storedSession, storeSession, type Session } from './session.ts';

const NAVIGATION = [
  { href: '/', label: 'Predictions', active: (path: string) => path === '/' || path.startsWith('/predictions/') },
  { href: '/models', label: 'Models', active: (path: string) => path.startsWith('/models') },
  { href: '/account', label: 'Account', active: (path: string) => path === '/account' },
  { href: '/account/webhooks', label: 'Webhooks', active: (path: string) => path === '/account/webhooks' },
];

const Header = ({ session, onSignOut }: { session: Session; onSignOut: () => void }) => {
  const { path } = useLocation();
  return (
    <header class="top">
      <a class="brand" href="/">
        prognoz
      </a>
      <nav aria-label="Main">
        {NAVIGATION.map((item) => (
          <a key={item.href} href={item.href} aria-current={item.active(path) ? 'page' : undefined}>
            {item.label}
          </a>
        ))}
        <a href="/docs">API docs</a>
      </nav>
      <span class="who">
        <span class="muted">{session.email}</span>
        <button type="button" class="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </span>
    </header>
  );
};

const NotFound = () => (
  <section>
    <h1>Not found</h1>
    <p>
      No such page. <a href="/">Back to your predictions</a>.
    </p>
  </section>
);

/** Page titles follow the route, so a tab and the history say where one is. */
const Title = () => {
  const { path } = useLocation();
  useEffect(() => {
    const page = path.startsWith('/predictions/')
      ? 'Prediction'
      : path.startsWith('/models/')
        ? path.slice('/models/'.length)
        : (NAVIGATION.find((item) => item.href === path)?.label ?? 'prognoz');
    document.title = `${page} · prognoz`;
  }, [path]);
  return null;
};

export const App = ({ config }: { config: ConsoleConfig }) => {
  const [session, setSession] = useState<Session | null>(storedSession);
  useEffect(() => onSignedOut(() => setSession(null)), []);
  if (session === null)
    return (
      <SignIn
        config={config}
        onSignedIn={(fresh) => {
          storeSession(fresh);
          setSession(fresh);
        }}
      />
    );
  return (
    <LocationProvider>
      <Title />
      <Header session={session} onSignOut={() => void signOut(config).then(() => setSession(null))} />
      <main id="content">
        <Router>
          <Route path="/" component={PredictionsPage} />
          <Route path="/predictions/:id" component={PredictionPage} />
          <Route path="/models" component={ModelsPage} />
          <Route path="/models/:company/:model" component={ModelPage} />
          <Route path="/account" component={AccountPage} />
          <Route path="/account/webhooks" component={WebhooksPage} />
          <Route default component={NotFound} />
        </Router>
      </main>
    </LocationProvider>
  );
};
