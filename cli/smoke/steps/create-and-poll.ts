import type { SmokeCheck } from '../context.ts';
import { stepDeadline } from '../context.ts';
import { createPrediction, expectEnded, serviceFigures, untilEnded } from '../predictions.ts';
import { duration, StepFailure } from '../step.ts';

/** Interface: Routes: an asynchronous create answers 201 `starting` at once; polling finds it succeeded. */
export const createAndPoll: SmokeCheck = {
  name: 'create and poll',
  async run(context) {
    const { client, options } = context;
    const deadline = stepDeadline(context);
    const started = performance.now();
    const { prediction, reply } = await createPrediction(client, options.model, options.input);
    if (prediction.status !== 'starting' || prediction.output !== null || prediction.runtime !== null)
      throw new StepFailure(
        `an asynchronous create answered status ${prediction.status} with output ${JSON.stringify(prediction.output)}, not starting with none (request id ${reply.requestId})`,
      );
    const ended = expectEnded(await untilEnded(client, prediction.id, deadline), 'succeeded');
    return {
      kind: 'pass',
      summary: `${ended.id} succeeded`,
      figures: [
        { name: 'create answered in', value: duration(reply.ms) },
        { name: 'succeeded after', value: duration(performance.now() - started) },
        ...serviceFigures(ended),
      ],
    };
  },
};
