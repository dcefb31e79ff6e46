import { useMemo, useState } from 'preact/hooks';
import { API_BASE, get } from '../api.ts';
import { fieldsOf, initialValues, inputOf, type FormValues, type JsonSchema } from '../schema-form.ts';
import { snippet, type SnippetLanguage } from '../snippets.ts';
import type { DeploymentView, ModelView } from '../types.ts';
import { CopyButton, ErrorNote, Json, Loading, roubles, Tabs, useLoad } from '../ui.tsx';
import { Examples, Readme } from './model-about.tsx';
import { Playground } from './playground.tsx';

const LANGUAGES: readonly { id: SnippetLanguage; label: string }[] = [
  { id: 'curl', label: 'curl' },
  { id: 'javascript', label: 'JavaScript' },
  { id: 'python', label: 'Python' },
];

const ApiTab = ({ model, input }: { model: string; input: Record<string, unknown> }) => {
  const target = { apiBase: `${location.origin}${API_BASE}`, model, input };
  return (
    <div>
      <p>
        Replace <code>$PROGNOZ_API_TOKEN</code> with a token from <a href="/account">Account</a>. The input is the
        Playground's. The whole API is described at <a href="/docs">/docs</a>.
      </p>
      {LANGUAGES.map(({ id, label }) => {
        const code = snippet(id, target);
        return (
          <div key={id} class="snippet">
            <h3>
              {label} <CopyButton text={code} label={`Copy ${label}`} />
            </h3>
            <pre class="code" tabIndex={0} aria-label={`${label} snippet`}>
              {code}
            </pre>
          </div>
        );
      })}
    </div>
  );
};

/** The model's fleet: the hardware it runs on, the bounds its scaler keeps it within, the instances running now. */
const Fleet = ({ id }: { id: string }) => {
  const fleet = useLoad(() => get<DeploymentView>(`/deployments/${id}`), `deployment ${id}`);
  if (fleet.data === null) return fleet.error ? <ErrorNote error={fleet.error} /> : <Loading what="its fleet" />;
  const { configuration } = fleet.data.current_release;
  const { running } = fleet.data.instances;
  return (
    <dl class="facts" aria-label="Fleet">
      <dt>Hardware</dt>
      <dd>{configuration.hardware}</dd>
      <dt>Instances</dt>
      <dd>
        {configuration.min_instances} to {configuration.max_instances}
      </dd>
      <dt>Running now</dt>
      <dd>{running}</dd>
    </dl>
  );
};

export const ModelPage = ({ company, model }: { company: string; model: string }) => {
  const id = `${company}/${model}`;
  const loaded = useLoad(() => get<ModelView>(`/${id}`), id);
  const fields = useMemo(() => (loaded.data ? fieldsOf(loaded.data.schema.input as JsonSchema) : []), [loaded.data]);
  const [values, setValues] = useState<FormValues | null>(null);
  const current = values ?? initialValues(fields);
  const result = inputOf(fields, current);
  if (loaded.data === null)
    return (
      <section>
        <h1>{id}</h1>
        {loaded.error ? <ErrorNote error={loaded.error} /> : <Loading what="the model" />}
      </section>
    );
  const view = loaded.data;
  return (
    <section aria-labelledby="model-title">
      <h1 id="model-title">{view.id}</h1>
      <p>{view.description}</p>
      <p class="muted">{roubles(view.price_per_second)} per second of model time</p>
      <Fleet id={view.id} />
      <Tabs
        label="Model"
        tabs={[
          {
            id: 'playground',
            label: 'Playground',
            panel: () => <Playground model={view.id} fields={fields} values={current} onChange={setValues} />,
          },
          { id: 'api', label: 'API', panel: () => <ApiTab model={view.id} input={result.ok ? result.input : {}} /> },
          { id: 'readme', label: 'README', panel: () => <Readme id={view.id} /> },
          { id: 'examples', label: 'Examples', panel: () => <Examples id={view.id} /> },
          {
            id: 'schema',
            label: 'Schema',
            panel: () => (
              <div class="columns">
                <div>
                  <h2>Input</h2>
                  <Json value={view.schema.input} label="Input JSON Schema" />
                </div>
                <div>
                  <h2>Output</h2>
                  <Json value={view.schema.output} label="Output JSON Schema" />
                </div>
              </div>
            ),
          },
        ]}
      />
    </section>
  );
};
