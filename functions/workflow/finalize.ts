import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { dynamoPredictionStore, type PredictionStore } from '../../shared/adapters/prediction-store.ts';
import { tableNameFromEnv } from '../../shared/config.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { METRICS_NAMESPACE } from '../../shared/metrics.ts';
import { finalizePrediction } from '../../shared/use-cases/finalize-prediction.ts';
import { finalizeInput, type FinalizeOutput } from '../../shared/workflow/messages.ts';

let store: PredictionStore | undefined;
const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: 'prognoz-workflow' });

/** The workflow's Finalize task: input is the execution state after Dispatch (result or error). */
export const handler = async (event: unknown): Promise<FinalizeOutput> => {
  const input = finalizeInput.parse(event);
  if (input.error?.Error === 'States.HeartbeatTimeout') {
    metrics.addMetric('WorkerHeartbeatLost', MetricUnit.Count, 1);
    metrics.publishStoredMetrics();
  }
  return finalizePrediction({ store: (store ??= dynamoPredictionStore(tableNameFromEnv())), clock: systemClock }, input);
};
