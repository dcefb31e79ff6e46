import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { predictionViewSchema, type PredictionView } from '../../shared/api/prediction-view-schema.ts';
import { isTerminalStatus } from '../../shared/domain/prediction.ts';
import { expectStatus, type Reply, type SmokeClient } from './client.ts';
import { duration, StepFailure, type Figure } from './step.ts';

const POLL_EVERY_MS = 500;

/** The reply's body as a prediction (interface: The prediction), or the step fails saying what is wrong with it. */
export const predictionIn = (reply: Reply, what: string): PredictionView => {
  const parsed = predictionViewSchema.safeParse(reply.body);
  if (!parsed.success)
    throw new StepFailure(
      `${what}: HTTP ${reply.status} (request id ${reply.requestId}) but not a prediction: ${z.prettifyError(parsed.error)}`,
    );
  return parsed.data;
};

/** Create (interface: Routes): 201 with the prediction, or the step fails with what the service said. */
export const createPrediction = async (
  client: SmokeClient,
  model: string,
  input: Readonly<Record<string, unknown>>,
  options: { headers?: Readonly<Record<string, string>>; timeoutMs?: number } = {},
): Promise<{ prediction: PredictionView; reply: Reply }> => {
  const reply = expectStatus(await client.call(model, { json: input, ...options }), 201, `create (POST ${model})`);
  return { prediction: predictionIn(reply, 'create'), reply };
};

export const getPrediction = async (client: SmokeClient, id: string): Promise<PredictionView> =>
  predictionIn(
    expectStatus(await client.call(`predictions/${id}`), 200, `GET predictions/${id}`),
    `GET predictions/${id}`,
  );

/** Polls the prediction (interface: Routes) until `done` holds, or fails when the step's time is up. */
export const pollUntil = async (
  client: SmokeClient,
  id: string,
  done: (prediction: PredictionView) => boolean,
  deadline: number,
  waitingFor: string,
): Promise<PredictionView> => {
  for (;;) {
    const prediction = await getPrediction(client, id);
    if (done(prediction)) return prediction;
    if (Date.now() >= deadline)
      throw new StepFailure(`prediction ${id} is still ${prediction.status}, not ${waitingFor}, when the time ran out`);
    await sleep(POLL_EVERY_MS);
  }
};

export const untilEnded = (client: SmokeClient, id: string, deadline: number) =>
  pollUntil(client, id, (p) => isTerminalStatus(p.status), deadline, 'ended');

/** The step fails unless the prediction ended as expected, saying how it did end. */
export const expectEnded = (prediction: PredictionView, expected: 'succeeded' | 'canceled'): PredictionView => {
  if (prediction.status !== expected)
    throw new StepFailure(
      `prediction ${prediction.id} ended ${prediction.status}, not ${expected}${prediction.error === null ? '' : `: ${prediction.error}`}`,
    );
  return prediction;
};

/** What the service says of an ended prediction: model time billed, its own timings, the cost. */
export const serviceFigures = (prediction: PredictionView): Figure[] => [
  ...(prediction.runtime === null ? [] : [{ name: 'runtime', value: `${prediction.runtime} s` }]),
  ...(prediction.metrics.predict_time === undefined
    ? []
    : [{ name: 'predict_time', value: duration(prediction.metrics.predict_time * 1000) }]),
  ...(prediction.metrics.total_time === undefined
    ? []
    : [{ name: 'total_time', value: duration(prediction.metrics.total_time * 1000) }]),
  ...(prediction.cost === undefined ? [] : [{ name: 'cost', value: `${prediction.cost.toFixed(2)} ₽` }]),
];
