import { useState } from 'preact/hooks';
import { get, request } from '../api.ts';
import type { AccountView } from '../types.ts';
import { CopyButton, ErrorNote, formText, Loading, roubles, useLoad, when } from '../ui.tsx';

interface ApiToken {
  readonly id: string;
  readonly name: string | null;
  readonly hint: string;
  readonly created_at: string;
  readonly last_used_at?: string | null;
  readonly revoked: boolean;
}

const useAction = () => {
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
      setError(null);
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, act };
};

const MonthlyLimit = ({ account, onSaved }: { account: AccountView; onSaved: (account: AccountView) => void }) => {
  const { error, busy, act } = useAction();
  const [saved, setSaved] = useState(false);
  const save = (event: SubmitEvent) => {
    event.preventDefault();
    const raw = formText(event.currentTarget, 'monthly-limit').trim().replace(',', '.');
    void act(async () => {
      const updated = await request<AccountView>('PATCH', '/account', {
        monthly_limit: raw === '' ? null : Number(raw),
      });
      onSaved(updated);
      setSaved(true);
    });
  };
  return (
    <form class="inline-form" onSubmit={save} onInput={() => setSaved(false)}>
      <label for="monthly-limit">Monthly limit, ₽</label>
      <input
        id="monthly-limit"
        name="monthly-limit"
        inputMode="decimal"
        placeholder="no limit"
        defaultValue={account.monthly_limit === null ? '' : String(account.monthly_limit)}
        aria-describedby="monthly-limit-help"
      />
      <button type="submit" disabled={busy}>
        Save limit
      </button>
      <small id="monthly-limit-help" class="muted">
        A prediction that would take this month's spend past it is refused (402). Empty: no limit.
      </small>
      {saved ? <span role="status">Saved.</span> : null}
      <ErrorNote error={error} />
    </form>
  );
};

const Tokens = () => {
  const tokens = useLoad(() => get<{ results: ApiToken[] }>('/account/tokens'), 'tokens');
  const [created, setCreated] = useState<(ApiToken & { token: string }) | null>(null);
  const { error, busy, act } = useAction();
  const create = (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const name = formText(form, 'token-name');
    void act(async () => {
      setCreated(await request<ApiToken & { token: string }>('POST', '/account/tokens', { name }));
      form.reset();
      await tokens.reload();
    });
  };
  const revoke = (token: ApiToken) =>
    void act(async () => {
      if (!confirm(`Revoke “${token.name ?? token.hint}”? Calls with it will be refused (401) from now on.`)) return;
      await request('DELETE', `/account/tokens/${token.id}`);
      await tokens.reload();
    });
  return (
    <>
      <form class="inline-form" onSubmit={create}>
        <label for="token-name">New token's name</label>
        <input id="token-name" name="token-name" required maxLength={64} placeholder="e.g. billing-service" />
        <button type="submit" disabled={busy}>
          Create token
        </button>
      </form>
      <ErrorNote error={error} />
      {created ? (
        <div class="once" role="status">
          <p>
            Your new token <strong>{created.name}</strong>. Copy it now: it is shown only this once.
          </p>
          <p class="secret">
            <code data-testid="new-token">{created.token}</code> <CopyButton text={created.token} label="Copy token" />
          </p>
        </div>
      ) : null}
      <ErrorNote error={tokens.error} />
      {tokens.data === null ? (
        tokens.error ? null : (
          <Loading what="tokens" />
        )
      ) : (
        <div class="table-wrap">
          <table class="stack">
            <caption class="visually-hidden">API tokens</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Token</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.results.map((token) => (
                <tr key={token.id} class={token.revoked ? 'revoked' : undefined}>
                  <td data-label="Name">{token.name ?? <span class="muted">(admin CLI)</span>}</td>
                  <td data-label="Token">
                    <code>{token.hint}</code>
                  </td>
                  <td data-label="Created">{when(token.created_at)}</td>
                  <td data-label="Last used">{token.last_used_at ? when(token.last_used_at) : 'never'}</td>
                  <td data-label="Actions">
                    {token.revoked ? (
                      'revoked'
                    ) : (
                      <button
                        type="button"
                        class="danger"
                        onClick={() => revoke(token)}
                        aria-label={`Revoke ${token.name ?? token.hint}`}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
};

export const AccountPage = () => {
  const account = useLoad(() => get<AccountView>('/account'), 'account');
  const [updated, setUpdated] = useState<AccountView | null>(null);
  const view = updated ?? account.data;
  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">Account</h1>
      <ErrorNote error={account.error} />
      {view === null ? (
        account.error ? null : (
          <Loading what="the account" />
        )
      ) : (
        <>
          <dl class="facts">
            <dt>Account</dt>
            <dd>
              <code>{view.id}</code>
            </dd>
            <dt>Balance</dt>
            <dd data-testid="balance">{roubles(view.balance)}</dd>
            <dt>Held by running predictions</dt>
            <dd>{roubles(view.held)}</dd>
            <dt>Spent in {view.month}</dt>
            <dd>
              {roubles(view.spent_this_month)}{' '}
              {view.monthly_limit === null ? 'of no limit' : `of ${roubles(view.monthly_limit)}`}
              {view.monthly_limit ? (
                <meter
                  min={0}
                  max={view.monthly_limit}
                  value={view.spent_this_month}
                  aria-label="This month's spend against the limit"
                />
              ) : null}
            </dd>
          </dl>
          <MonthlyLimit account={view} onSaved={setUpdated} />
        </>
      )}
      <h2>API tokens</h2>
      <p class="muted">Tokens call the API from code. Only you, signed in here, can create or revoke them.</p>
      <Tokens />
    </section>
  );
};
