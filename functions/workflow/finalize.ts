import { dynamoPredictionStore, type PredictionStore } from '../../shared/adapters/prediction-store.ts';
import { tableNameFromEnv } from '../../shared/config.ts';
import { systemClock } from '../../shared/domain/clock.ts';
import { finalizePrediction } from '../../shared/use-cases/finalize-prediction.ts';
import { finalizeInput } from '../../shared/workflow/messages.ts';

let store: PredictionStore | undefined;

/** The workflow's Finalize task: input is the execution state after Dispatch (result or error). */
export const handler = async (event: unknown): Promise<{ status: string }> =>
  finalizePrediction({ store: (store ??= dynamoPredictionStore(tableNameFromEnv())), clock: systemClock }, finalizeInput.parse(event));
