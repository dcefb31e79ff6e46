import { SYNC_WAIT } from '../../../shared/api/routes.ts';
import type { SmokeCheck } from '../context.ts';
import { createPrediction, serviceFigures } from '../predictions.ts';
import { duration, StepFailure } from '../step.ts';

/** How long the create waits: the longest the service allows, for a fleet that is still warming. */
const WAIT_SECONDS = SYNC_WAIT.maxSeconds;

/** Interface: Requests: with `Prefer: SYNC` the create answers once the prediction has ended, output included. */
export const synchronousCreate: SmokeCheck = {
  name: 'synchronous create',
  async run({ client, options }) {
    const { prediction, reply } = await createPrediction(client, options.model, options.input, {
      headers: { prefer: 'SYNC', 'request-timeout': String(WAIT_SECONDS) },
      // The wait, and room for the service to create and answer.
      timeoutMs: (WAIT_SECONDS + 30) * 1000,
    });
    if (prediction.status !== 'succeeded')
      throw new StepFailure(
        `Prefer: SYNC answered ${prediction.id} ${prediction.status}, not succeeded, after ${duration(reply.ms)}${prediction.error === null ? '' : `: ${prediction.error}`} (request id ${reply.requestId})`,
      );
    if (prediction.output === null)
      throw new StepFailure(
        `Prefer: SYNC answered ${prediction.id} succeeded without its output (request id ${reply.requestId})`,
      );
    return {
      kind: 'pass',
      summary: `${prediction.id} came back succeeded, output included`,
      figures: [{ name: 'answered in', value: duration(reply.ms) }, ...serviceFigures(prediction)],
    };
  },
};
