import { useLocation } from 'preact-iso';
import { ACTIVE_STATUSES, TERMINAL_STATUSES } from '../../../../shared/domain/prediction.ts';
import { get } from '../api.ts';
import type { ModelSummary, PredictionListBody } from '../types.ts';
import { ErrorNote, Loading, roubles, seconds, StatusBadge, useLoad, when } from '../ui.tsx';

const FILTERS = ['model', 'status', 'cursor'] as const;
const POLL_MS = 2000;

/** A page's query as this page's own address: the API's `next`/`previous` links carry the filters and the cursor. */
const pageLink = (apiLink: string | null): string | null =>
  apiLink === null ? null : `/?${new URL(apiLink).searchParams.toString()}`;

const queryOf = (query: Record<string, string>): string => {
  const params = new URLSearchParams();
  for (const name of FILTERS) if (query[name]) params.set(name, query[name]);
  return params.toString();
};

export const PredictionsPage = () => {
  const { query, route } = useLocation();
  const search = queryOf(query);
  const list = useLoad(() => get<PredictionListBody>(`/predictions${search ? `?${search}` : ''}`), search, {
    every: POLL_MS,
    again: (page) =>
      page.results.some((prediction) => (ACTIVE_STATUSES as readonly string[]).includes(prediction.status)),
  });
  const models = useLoad(() => get<{ results: ModelSummary[] }>('/models'), 'models');

  const filter = (name: 'model' | 'status', value: string) => {
    const params = new URLSearchParams(search);
    params.delete('cursor');
    if (value) params.set(name, value);
    else params.delete(name);
    route(`/?${params.toString()}`);
  };
  const newer = pageLink(list.data?.previous ?? null);
  const older = pageLink(list.data?.next ?? null);

  return (
    <section aria-labelledby="predictions-title">
      <h1 id="predictions-title">Predictions</h1>
      <div class="filters">
        <label>
          Model
          <select value={query.model ?? ''} onChange={(event) => filter('model', event.currentTarget.value)}>
            <option value="">All models</option>
            {(models.data?.results ?? []).map((model) => (
              <option key={model.id} value={model.id}>
                {model.id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={query.status ?? ''} onChange={(event) => filter('status', event.currentTarget.value)}>
            <option value="">Any status</option>
            {[...ACTIVE_STATUSES, ...TERMINAL_STATUSES].map((status) => (
              <option key={status} value={status}>
                {status}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorNote error={list.error} />
      {list.data === null ? (
        list.error ? null : (
          <Loading what="predictions" />
        )
      ) : list.data.results.length === 0 ? (
        <p class="empty">
          No predictions {search ? 'match these filters' : 'yet'}. Try a model in its <a href="/models">Playground</a>.
        </p>
      ) : (
        <div class="table-wrap">
          <table class="stack">
            <caption class="visually-hidden">Your predictions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Prediction</th>
                <th scope="col">Model</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">Runtime</th>
                <th scope="col">Cost</th>
              </tr>
            </thead>
            <tbody>
              {list.data.results.map((prediction) => (
                <tr key={prediction.id}>
                  <td data-label="Prediction">
                    <a href={`/predictions/${prediction.id}`}>
                      <code>{prediction.id}</code>
                    </a>
                  </td>
                  <td data-label="Model">{prediction.model}</td>
                  <td data-label="Status">
                    <StatusBadge status={prediction.status} />
                  </td>
                  <td data-label="Created">{when(prediction.created_at)}</td>
                  <td data-label="Runtime">{seconds(prediction.runtime)}</td>
                  <td data-label="Cost">{roubles(prediction.cost)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Pages">
        {newer ? <a href={newer}>← Newer</a> : <span />}
        {older ? <a href={older}>Older →</a> : null}
      </nav>
    </section>
  );
};
