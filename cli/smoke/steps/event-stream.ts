import type { SmokeCheck } from '../context.ts';
import { stepDeadline } from '../context.ts';
import { readEventStream, type ReadStream } from '../event-stream.ts';
import { createPrediction } from '../predictions.ts';
import { duration, StepFailure } from '../step.ts';

/** How `done` says a prediction ended otherwise than succeeded (`{"reason": "error" | "canceled"}`). */
const doneReason = (data: string): string | null => {
  try {
    const parsed = JSON.parse(data) as { reason?: unknown };
    return typeof parsed.reason === 'string' ? parsed.reason : null;
  } catch {
    return `unreadable (${data})`;
  }
};

const read = async (url: string, deadline: number): Promise<ReadStream> => {
  try {
    return await readEventStream(url, 'done', AbortSignal.timeout(Math.max(0, deadline - Date.now())));
  } catch (error) {
    if (error instanceof DOMException && error.name === 'TimeoutError')
      throw new StepFailure('the event stream had not sent done when the time ran out');
    throw error;
  }
};

/**
 * The prediction's server-sent events (`urls.stream`, opened without the token): its output,
 * then `done` with `{}` when it succeeded.
 */
export const eventStream: SmokeCheck = {
  name: 'event stream',
  async run(context) {
    const { client, options } = context;
    const deadline = stepDeadline(context);
    const { prediction } = await createPrediction(client, options.model, options.input);
    const url = prediction.urls?.stream;
    if (!url) throw new StepFailure(`prediction ${prediction.id} has no urls.stream`);
    const stream = await read(url, deadline);
    if (stream.status !== 200 || stream.body !== null)
      throw new StepFailure(
        `GET urls.stream answered HTTP ${stream.status} (${stream.contentType ?? 'no content type'}), not an event stream: ${(stream.body ?? '').slice(0, 200)}`,
      );
    const last = stream.events.at(-1);
    if (last?.event !== 'done')
      throw new StepFailure(
        `the event stream closed after ${stream.events.length} events without done (last: ${last?.event ?? 'none'})`,
      );
    const reason = doneReason(last.data);
    if (reason !== null) {
      const error = stream.events.find((event) => event.event === 'error')?.data;
      throw new StepFailure(`the event stream ended done with reason ${reason}${error ? `: ${error}` : ''}`);
    }
    const outputs = stream.events.filter((event) => event.event === 'output');
    if (outputs.length === 0) throw new StepFailure('the event stream ended done without an output event');
    return {
      kind: 'pass',
      summary: `${prediction.id}: ${stream.events.length} events, the last done`,
      figures: [
        { name: 'first output after', value: duration(outputs[0]?.atMs ?? 0) },
        { name: 'done after', value: duration(last.atMs) },
      ],
    };
  },
};
