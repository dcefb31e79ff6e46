import { useState } from 'preact/hooks';
import { ACTIVE_STATUSES } from '../../../../shared/domain/prediction.ts';
import { get, request } from '../api.ts';
import { OutputView } from '../output-view.tsx';
import type { PredictionView, WebhookDeliveries } from '../types.ts';
import { ErrorNote, Json, Loading, roubles, seconds, StatusBadge, useLoad, when } from '../ui.tsx';

const POLL_MS = 1000;
const isActive = (prediction: PredictionView): boolean =>
  (ACTIVE_STATUSES as readonly string[]).includes(prediction.status);

const Timeline = ({ prediction }: { prediction: PredictionView }) => {
  const ended = prediction.completed_at;
  const steps = [
    { label: 'Created', at: prediction.created_at, reached: true },
    {
      label: 'Queued',
      at: prediction.created_at,
      reached: prediction.status !== 'pending' || prediction.started_at !== null,
    },
    { label: 'Processing', at: prediction.started_at, reached: prediction.started_at !== null },
    {
      label: ended ? `${prediction.status.slice(0, 1).toUpperCase()}${prediction.status.slice(1)}` : 'Ended',
      at: ended,
      reached: ended !== null,
    },
  ];
  return (
    <ol class="timeline" aria-label="Timeline">
      {steps.map((step) => (
        <li key={step.label} class={step.reached ? 'reached' : 'ahead'}>
          <span class="step">{step.label}</span>
          <span class="muted">{step.reached ? when(step.at) : '—'}</span>
        </li>
      ))}
    </ol>
  );
};

/** Deliveries, and their retries, trail the prediction's end by seconds to a minute or so. */
const DELIVERIES_SETTLE_MS = 120_000;

const unsettled = (deliveries: WebhookDeliveries, endedAt: string | null): boolean =>
  deliveries.webhook !== null &&
  (endedAt === null || Date.now() - Date.parse(endedAt) < DELIVERIES_SETTLE_MS) &&
  deliveries.attempts.at(-1)?.outcome !== 'dead_lettered';

const Deliveries = ({ id, endedAt }: { id: string; endedAt: string | null }) => {
  const deliveries = useLoad(() => get<WebhookDeliveries>(`/predictions/${id}/webhooks`), id, {
    every: 2000,
    again: (data) => unsettled(data, endedAt),
  });
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const redeliver = async () => {
    try {
      const queued = await request<{ webhook_id: string }>('POST', `/predictions/${id}/webhooks/redeliver`);
      setNote(`Queued again as ${queued.webhook_id}.`);
      setError(null);
      setTimeout(() => void deliveries.reload(), 1500);
    } catch (failure) {
      setError(failure as Error);
    }
  };
  if (deliveries.data === null)
    return deliveries.error ? <ErrorNote error={deliveries.error} /> : <Loading what="deliveries" />;
  if (deliveries.data.webhook === null) return <p class="muted">This prediction has no webhook.</p>;
  // Only a delivery that failed for good can be sent again; one still retrying retries by itself.
  const deadLettered = deliveries.data.attempts.at(-1)?.outcome === 'dead_lettered';
  return (
    <>
      <p>
        To <code>{deliveries.data.webhook}</code>
      </p>
      {deadLettered ? (
        <p>
          Its last delivery failed for good.{' '}
          <button type="button" class="secondary" onClick={() => void redeliver()}>
            Redeliver
          </button>
        </p>
      ) : null}
      {note ? <p role="status">{note}</p> : null}
      <ErrorNote error={error} />
      <DeliveryTable attempts={deliveries.data.attempts} />
    </>
  );
};

export const DeliveryTable = ({
  attempts,
  withPrediction = false,
}: {
  attempts: readonly (WebhookDeliveries['attempts'][number] & { prediction_id?: string })[];
  withPrediction?: boolean;
}) =>
  attempts.length === 0 ? (
    <p class="muted">No deliveries yet.</p>
  ) : (
    <div class="table-wrap">
      <table class="stack">
        <thead>
          <tr>
            {withPrediction ? <th scope="col">Prediction</th> : null}
            <th scope="col">Event</th>
            <th scope="col">Attempt</th>
            <th scope="col">At</th>
            <th scope="col">Answer</th>
            <th scope="col">Outcome</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((attempt, index) => (
            <tr key={`${attempt.webhook_id}-${attempt.attempt}-${index}`}>
              {withPrediction ? (
                <td data-label="Prediction">
                  <a href={`/predictions/${attempt.prediction_id ?? ''}`}>
                    <code>{attempt.prediction_id}</code>
                  </a>
                </td>
              ) : null}
              <td data-label="Event">{attempt.event}</td>
              <td data-label="Attempt">{attempt.attempt}</td>
              <td data-label="At">{when(attempt.at)}</td>
              <td data-label="Answer">{attempt.status_code ?? attempt.error ?? '—'}</td>
              <td data-label="Outcome">
                <StatusBadge status={attempt.outcome} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );

export const PredictionPage = ({ id }: { id: string }) => {
  const prediction = useLoad(() => get<PredictionView>(`/predictions/${id}`), id, { every: POLL_MS, again: isActive });
  const [cancelError, setCancelError] = useState<Error | null>(null);
  const cancel = async () => {
    try {
      await request('POST', `/predictions/${id}/cancel`);
      setCancelError(null);
      await prediction.reload();
    } catch (failure) {
      setCancelError(failure as Error);
    }
  };
  const view = prediction.data;
  if (view === null)
    return (
      <section>
        <h1>Prediction</h1>
        {prediction.error ? <ErrorNote error={prediction.error} /> : <Loading what="the prediction" />}
      </section>
    );
  const active = isActive(view);
  return (
    <section aria-labelledby="prediction-title">
      <h1 id="prediction-title">
        Prediction <code>{view.id}</code>
      </h1>
      <p class="summary">
        <StatusBadge status={view.status} /> <a href={`/models/${view.model}`}>{view.model}</a>
        {view.progress !== undefined ? <progress max={1} value={view.progress} aria-label="Progress" /> : null}
        {active ? (
          <button type="button" class="danger" onClick={() => void cancel()}>
            Cancel
          </button>
        ) : null}
      </p>
      <ErrorNote error={cancelError ?? prediction.error} />
      <dl class="facts">
        <dt>Runtime</dt>
        <dd>{seconds(view.runtime)}</dd>
        <dt>Cost</dt>
        <dd>{roubles(view.cost)}</dd>
        <dt>Total time</dt>
        <dd>{seconds(view.metrics.total_time)}</dd>
      </dl>
      <Timeline prediction={view} />
      {view.error ? (
        <p class="error" role="alert">
          {view.error}
        </p>
      ) : null}
      <div class="columns">
        <div>
          <h2>Input</h2>
          <Json value={view.input} label="Input" />
        </div>
        <div>
          <h2>Output</h2>
          {view.status === 'succeeded' ? (
            <OutputView output={view.output} />
          ) : (
            <p class="muted">{active ? 'Not yet.' : 'None.'}</p>
          )}
        </div>
      </div>
      <h2>Logs</h2>
      {view.logs ? (
        <pre class="code logs" tabIndex={0} aria-label="Logs">
          {view.logs}
        </pre>
      ) : (
        <p class="muted">No logs.</p>
      )}
      <h2>Webhook deliveries</h2>
      <Deliveries id={view.id} endedAt={view.completed_at} />
    </section>
  );
};
