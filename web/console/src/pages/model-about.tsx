import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import { get, getText } from '../api.ts';
import { OutputView } from '../output-view.tsx';
import { ErrorNote, Json, Loading, useLoad } from '../ui.tsx';

interface Example {
  readonly id: string;
  readonly input: Record<string, unknown>;
  readonly output: unknown;
  readonly completed_at: string | null;
  readonly metrics?: { readonly predict_time?: number };
}

interface ExamplePage {
  readonly results: readonly Example[];
  readonly next: string | null;
}

/**
 * The model's README (GET /models/{owner}/{name}/readme), rendered. micromark leaves raw HTML
 * escaped and drops `javascript:` links: a README is the operator's, but the page is the owner's.
 */
export const Readme = ({ id }: { id: string }) => {
  const readme = useLoad(() => getText(`/models/${id}/readme`), `readme ${id}`);
  if (readme.data === null) return readme.error ? <ErrorNote error={readme.error} /> : <Loading what="its README" />;
  const html = micromark(readme.data, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
  return <article class="readme" aria-label="README" dangerouslySetInnerHTML={{ __html: html }} />;
};

/** The predictions the operator marked as examples of the model (GET /models/{owner}/{name}/examples). */
export const Examples = ({ id }: { id: string }) => {
  const examples = useLoad(() => get<ExamplePage>(`/models/${id}/examples`), `examples ${id}`);
  if (examples.data === null)
    return examples.error ? <ErrorNote error={examples.error} /> : <Loading what="its examples" />;
  if (examples.data.results.length === 0)
    return (
      <p class="muted">
        No examples yet. An operator marks one with <code>npx prognoz models examples add {id} PREDICTION_ID</code>.
      </p>
    );
  return (
    <ol class="examples" aria-label="Examples">
      {examples.data.results.map((example) => (
        <li key={example.id} aria-label={`Example ${example.id}`}>
          <div class="columns">
            <div>
              <h3>Input</h3>
              <Json value={example.input} label={`Input of example ${example.id}`} />
            </div>
            <div>
              <h3>Output</h3>
              <OutputView output={example.output} />
            </div>
          </div>
          {example.metrics?.predict_time === undefined ? null : (
            <p class="muted">Ran {example.metrics.predict_time.toFixed(1)} s</p>
          )}
        </li>
      ))}
    </ol>
  );
};
