import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.ts';

export interface Loaded<T> {
  readonly data: T | null;
  readonly error: Error | null;
  readonly reload: () => Promise<void>;
}

/** Loads on mount and whenever `key` changes; `every` ms again while `again(data)` holds (a running prediction). */
export const useLoad = <T,>(
  load: () => Promise<T>,
  key: string,
  poll?: { every: number; again: (data: T) => boolean },
): Loaded<T> => {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const loadRef = useRef(load);
  loadRef.current = load;
  // Only the newest load's answer is shown: an older one that answers later (a slow filtered list,
  // after its filter was cleared) would put back what the page no longer asks for.
  const newest = useRef(0);
  const reload = useCallback(async () => {
    const ticket = ++newest.current;
    try {
      const loaded = await loadRef.current();
      if (ticket !== newest.current) return;
      setData(loaded);
      setError(null);
    } catch (failure) {
      if (ticket !== newest.current) return;
      setError(failure instanceof Error ? failure : new Error(String(failure)));
    }
  }, []);
  useEffect(() => {
    setData(null);
    void reload();
  }, [key, reload]);
  const again = data !== null && poll !== undefined && poll.again(data);
  useEffect(() => {
    if (!again || poll === undefined) return undefined;
    const timer = setInterval(() => void reload(), poll.every);
    return () => clearInterval(timer);
  }, [again, poll?.every, reload]);
  return { data, error, reload };
};

export const ErrorNote = ({ error }: { error: Error | null }) =>
  error === null ? null : (
    <p class="error" role="alert">
      {error.message}
      {error instanceof ApiError && error.code !== `http_${error.status}` ? (
        <code class="error-code">{error.code}</code>
      ) : null}
    </p>
  );

export const Loading = ({ what }: { what: string }) => (
  <p class="muted" aria-live="polite">
    Loading {what}…
  </p>
);

export const StatusBadge = ({ status }: { status: string }) => <span class={`status status-${status}`}>{status}</span>;

export const CopyButton = ({ text, label = 'Copy' }: { text: string; label?: string }) => {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(text);
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <button type="button" class="secondary" onClick={() => void copy()} aria-live="polite">
      {copied ? 'Copied' : label}
    </button>
  );
};

export const Json = ({ value, label }: { value: unknown; label: string }) => (
  <pre class="code" aria-label={label} tabIndex={0}>
    {JSON.stringify(value, null, 2)}
  </pre>
);

export interface Tab {
  readonly id: string;
  readonly label: string;
  readonly panel: () => ComponentChildren;
}

/** Tabs as WAI-ARIA describes them: arrow keys move between tabs, Tab moves into the panel. */
export const Tabs = ({ tabs, label }: { tabs: readonly Tab[]; label: string }) => {
  const [selected, setSelected] = useState(tabs[0]?.id ?? '');
  const buttons = useRef<Record<string, HTMLButtonElement | null>>({});
  const move = (event: KeyboardEvent, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    const next = tabs[(index + step + tabs.length) % tabs.length];
    if (!next) return;
    setSelected(next.id);
    buttons.current[next.id]?.focus();
  };
  const current = tabs.find((tab) => tab.id === selected) ?? tabs[0];
  return (
    <div class="tabs">
      <div role="tablist" aria-label={label}>
        {tabs.map((tab, index) => (
          <button
            type="button"
            role="tab"
            key={tab.id}
            id={`tab-${tab.id}`}
            ref={(element) => {
              buttons.current[tab.id] = element;
            }}
            aria-selected={tab.id === current?.id}
            aria-controls={`panel-${tab.id}`}
            tabIndex={tab.id === current?.id ? 0 : -1}
            onClick={() => setSelected(tab.id)}
            onKeyDown={(event) => move(event, index)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      {/* Every panel stays mounted, so a run in the Playground survives a look at the API tab. */}
      {tabs.map((tab) => (
        <div
          key={tab.id}
          role="tabpanel"
          id={`panel-${tab.id}`}
          aria-labelledby={`tab-${tab.id}`}
          hidden={tab.id !== current?.id}
        >
          {tab.panel()}
        </div>
      ))}
    </div>
  );
};

const money = new Intl.NumberFormat('ru-RU', { style: 'currency', currency: 'RUB', maximumFractionDigits: 6 });

/** A text field of a submitted form ('' when it has none). */
export const formText = (form: EventTarget | null, name: string): string => {
  const value = new FormData(form as HTMLFormElement).get(name);
  return typeof value === 'string' ? value : '';
};

export const roubles = (amount: number | null | undefined): string =>
  amount === null || amount === undefined ? '—' : money.format(amount);

export const seconds = (value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : `${value.toFixed(value < 10 ? 2 : 1)} s`;

export const when = (iso: string | null | undefined): string => (iso ? new Date(iso).toLocaleString() : '—');
