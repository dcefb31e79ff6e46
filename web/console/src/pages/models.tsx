import { get } from '../api.ts';
import type { ModelSummary } from '../types.ts';
import { ErrorNote, Loading, roubles, useLoad } from '../ui.tsx';

export const ModelsPage = () => {
  const models = useLoad(() => get<{ results: ModelSummary[] }>('/models'), 'models');
  return (
    <section aria-labelledby="models-title">
      <h1 id="models-title">Models</h1>
      <ErrorNote error={models.error} />
      {models.data === null ? (
        models.error ? null : (
          <Loading what="models" />
        )
      ) : (
        <ul class="cards">
          {models.data.results.map((model) => (
            <li key={model.id} class="card">
              <h2>
                <a href={`/models/${model.id}`}>{model.id}</a>
              </h2>
              <p>{model.description}</p>
              <p class="muted">{roubles(model.price_per_second)} per second</p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
};
