import type { PredictionView } from '../../../shared/api/prediction-view.ts';
import { isTerminalStatus } from '../../../shared/domain/prediction.ts';
import { expectStatus } from '../client.ts';
import type { SmokeCheck, SmokeContext } from '../context.ts';
import { stepDeadline } from '../context.ts';
import {
  createPrediction,
  expectEnded,
  getPrediction,
  pollUntil,
  predictionIn,
  serviceFigures,
} from '../predictions.ts';
import { duration, StepFailure } from '../step.ts';

const cancel = async ({ client }: SmokeContext, id: string) =>
  client.call(`predictions/${id}/cancel`, { method: 'POST' });

/** Interface: Statuses: a prediction the model is working on, canceled, answers and stays `canceled`. */
export const cancelRunning: SmokeCheck = {
  name: 'cancel while running',
  async run(context) {
    const { client, options } = context;
    const deadline = stepDeadline(context);
    const started = performance.now();
    const { prediction } = await createPrediction(client, options.model, options.busyInput);
    let settled = false;
    try {
      const running = await pollUntil(
        client,
        prediction.id,
        (p) => p.status === 'processing' || isTerminalStatus(p.status),
        deadline,
        'processing',
      );
      if (running.status !== 'processing')
        throw new StepFailure(
          `prediction ${prediction.id} ended ${running.status} before it could be canceled: give a --busy-input that runs longer`,
        );
      const runningAfter = performance.now() - started;
      const reply = expectStatus(await cancel(context, prediction.id), 200, `POST predictions/${prediction.id}/cancel`);
      const canceled: PredictionView = expectEnded(predictionIn(reply, 'cancel'), 'canceled');
      settled = true;
      // Ended for good: a later read agrees.
      expectEnded(await getPrediction(client, prediction.id), 'canceled');
      return {
        kind: 'pass',
        summary: `${prediction.id} canceled while processing`,
        figures: [
          { name: 'processing after', value: duration(runningAfter) },
          { name: 'cancel answered in', value: duration(reply.ms) },
          ...serviceFigures(canceled),
        ],
      };
    } finally {
      // A step that failed leaves nothing running up the account's bill.
      if (!settled) await cancel(context, prediction.id).catch(() => undefined);
    }
  },
};
