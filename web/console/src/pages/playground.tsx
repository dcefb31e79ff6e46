import { useEffect, useRef, useState } from 'preact/hooks';
import { ACTIVE_STATUSES } from '../../../../shared/domain/prediction.ts';
import { get, request, sameOrigin } from '../api.ts';
import { OutputView } from '../output-view.tsx';
import { inputOf, type Field, type FormValues } from '../schema-form.ts';
import type { PredictionView } from '../types.ts';
import { ErrorNote, StatusBadge } from '../ui.tsx';

interface FileView {
  readonly urls: { readonly get: string };
}

const FieldInput = ({
  field,
  value,
  error,
  onChange,
}: {
  field: Field;
  value: string | boolean;
  error?: string | undefined;
  onChange: (value: string | boolean) => void;
}) => {
  const id = `input-${field.name}`;
  const describedBy =
    [field.description ? `${id}-help` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  const [uploading, setUploading] = useState<string | null>(null);
  const common = { id, name: field.name, 'aria-describedby': describedBy, 'aria-invalid': error ? true : undefined };
  const upload = async (file: File) => {
    const form = new FormData();
    form.set('content', file, file.name);
    setUploading(`Uploading ${file.name}…`);
    try {
      const stored = await request<FileView>('POST', '/files', form);
      onChange(stored.urls.get);
      setUploading(`${file.name} uploaded.`);
    } catch (failure) {
      setUploading(`Upload failed: ${(failure as Error).message}`);
    }
  };
  let control;
  switch (field.kind) {
    case 'boolean':
      control = (
        <input
          {...common}
          type="checkbox"
          checked={value === true}
          onChange={(event) => onChange(event.currentTarget.checked)}
        />
      );
      break;
    case 'choice':
      control = (
        <select {...common} value={String(value)} onChange={(event) => onChange(event.currentTarget.value)}>
          {field.required || field.defaultValue !== undefined ? null : <option value="">—</option>}
          {(field.choices ?? []).map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      );
      break;
    case 'integer':
    case 'number':
      control = (
        <input
          {...common}
          type="number"
          inputMode={field.kind === 'integer' ? 'numeric' : 'decimal'}
          step={field.kind === 'integer' ? 1 : 'any'}
          min={field.minimum}
          max={field.maximum}
          required={field.required}
          value={String(value)}
          onInput={(event) => onChange(event.currentTarget.value)}
        />
      );
      break;
    case 'file':
      control = (
        <span class="file-field">
          <input
            {...common}
            type="url"
            placeholder="https://…"
            required={field.required}
            value={String(value)}
            onInput={(event) => onChange(event.currentTarget.value)}
          />
          <label class="secondary file-pick">
            Upload a file
            <input
              type="file"
              class="visually-hidden"
              onChange={(event) => event.currentTarget.files?.[0] && void upload(event.currentTarget.files[0])}
            />
          </label>
          {uploading ? <span role="status">{uploading}</span> : null}
        </span>
      );
      break;
    default:
      control = (
        <textarea
          {...common}
          rows={field.kind === 'json' ? 4 : 2}
          maxLength={field.maxLength}
          required={field.required}
          value={String(value)}
          onInput={(event) => onChange(event.currentTarget.value)}
        />
      );
  }
  return (
    <div class={`field field-${field.kind}`}>
      <label for={id}>
        {field.label}
        {field.required ? <span aria-hidden="true"> *</span> : null}
      </label>
      {control}
      {field.description ? (
        <small id={`${id}-help`} class="muted">
          {field.description}
          {field.minimum !== undefined || field.maximum !== undefined
            ? ` (${field.minimum ?? '…'}–${field.maximum ?? '…'})`
            : ''}
        </small>
      ) : null}
      {error ? (
        <small id={`${id}-error`} class="error">
          {error}
        </small>
      ) : null}
    </div>
  );
};

const isActive = (prediction: PredictionView): boolean =>
  (ACTIVE_STATUSES as readonly string[]).includes(prediction.status);

/**
 * Runs the model and shows its output as it arrives: the prediction's event stream brings the
 * pieces a streaming model yields and the log lines; the prediction itself is fetched at the end
 * (and polled, should the stream drop).
 */
const useRun = () => {
  const [prediction, setPrediction] = useState<PredictionView | null>(null);
  const [pieces, setPieces] = useState<string[]>([]);
  const [error, setError] = useState<Error | null>(null);
  const stream = useRef<EventSource | null>(null);
  const poll = useRef<ReturnType<typeof setInterval> | null>(null);
  const stop = () => {
    stream.current?.close();
    stream.current = null;
    if (poll.current !== null) clearInterval(poll.current);
    poll.current = null;
  };
  useEffect(() => stop, []);
  const refresh = async (id: string) => {
    const latest = await get<PredictionView>(`/predictions/${id}`);
    setPrediction(latest);
    if (!isActive(latest)) stop();
  };
  const run = async (model: string, input: Record<string, unknown>) => {
    stop();
    setPieces([]);
    setError(null);
    try {
      const created = await request<PredictionView>('POST', `/${model}`, input);
      setPrediction(created);
      if (!isActive(created)) return;
      poll.current = setInterval(() => void refresh(created.id).catch(setError), 2000);
      if (created.urls?.stream) {
        const events = new EventSource(sameOrigin(created.urls.stream));
        stream.current = events;
        events.addEventListener('output', (event) =>
          setPieces((sofar) => [...sofar, (event as MessageEvent<string>).data]),
        );
        events.addEventListener('done', () => {
          events.close();
          void refresh(created.id).catch(setError);
        });
      }
    } catch (failure) {
      setError(failure as Error);
    }
  };
  return { prediction, pieces, error, run };
};

export const Playground = ({
  model,
  fields,
  values,
  onChange,
}: {
  model: string;
  fields: readonly Field[];
  values: FormValues;
  onChange: (values: FormValues) => void;
}) => {
  const [errors, setErrors] = useState<Readonly<Record<string, string>>>({});
  const { prediction, pieces, error, run } = useRun();
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    const result = inputOf(fields, values);
    if (!result.ok) {
      setErrors(result.errors);
      return;
    }
    setErrors({});
    void run(model, result.input);
  };
  const running = prediction !== null && isActive(prediction);
  return (
    <div class="columns">
      <form class="playground" onSubmit={submit} noValidate aria-label="Input">
        {fields.map((field) => (
          <FieldInput
            key={field.name}
            field={field}
            value={values[field.name] ?? ''}
            error={errors[field.name]}
            onChange={(value) => onChange({ ...values, [field.name]: value })}
          />
        ))}
        <button type="submit" disabled={running}>
          {running ? 'Running…' : 'Run'}
        </button>
      </form>
      <div class="result" aria-live="polite">
        <h2>Output</h2>
        <ErrorNote error={error} />
        {prediction === null ? (
          <p class="muted">Run the model to see its output here.</p>
        ) : (
          <>
            <p>
              <StatusBadge status={prediction.status} />{' '}
              <a href={`/predictions/${prediction.id}`}>
                <code>{prediction.id}</code>
              </a>
            </p>
            {prediction.status === 'succeeded' ? (
              <OutputView output={prediction.output} />
            ) : pieces.length > 0 ? (
              <pre class="code" aria-label="Output so far">
                {pieces.join(' ')}
              </pre>
            ) : null}
            {prediction.error ? (
              <p class="error" role="alert">
                {prediction.error}
              </p>
            ) : null}
          </>
        )}
      </div>
    </div>
  );
};
