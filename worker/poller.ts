import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { setTimeout as sleep } from 'node:timers/promises';
import { dispatchMessage, type DispatchMessage } from '../shared/workflow/messages.ts';
import type { ModelHealth, ModelServer } from '../shared/ports/model-server.ts';
import type { JobDisposition } from '../shared/use-cases/work-job.ts';

/** What becomes of a job message once its handler is done. */
export type Disposition = JobDisposition;

export interface PollerOptions {
  readonly sqs: SQSClient;
  readonly queueUrl: string;
  readonly modelServer: Pick<ModelServer, 'health'>;
  /** Runs the model server takes at once (cog.yaml `concurrency.max`): jobs this worker holds at once. */
  readonly slots: number;
  /** Seconds a received message stays hidden: the worker's lease, renewed while it runs. */
  readonly leaseSeconds: number;
  /**
   * Stops the taking of jobs: no receive begins after it, the jobs running go on, and pollQueue
   * returns when they end and the receives under way have answered (handing back what they bring).
   */
  readonly signal: AbortSignal;
  /** How long one receive waits for a job (SQS's long poll; 20 s, its most, unless given). */
  readonly waitSeconds?: number;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  /**
   * `setupError`: the model server failed its setup, so the job is ended with that error, not run.
   * `runEnded`: called once the model server has ended the job's run, its result in hand; the slot
   * takes its next job then, while this one's end is recorded.
   */
  readonly handle: (
    message: DispatchMessage,
    renewLease: () => Promise<void>,
    setupError: string | null,
    runEnded: () => void,
  ) => Promise<Disposition>;
}

/** The first pause before asking the model server again; each pause doubles, up to the last. */
const HEALTH_PAUSES_MS = { first: 10, last: 250 } as const;

/**
 * Waits until the model server can take a run: READY (a slot free), or failed its setup — then
 * jobs are taken and failed with its error rather than left to wait in the queue. BUSY is coglet's
 * word for no free slot: a run of another slot of this worker that has just ended (coglet frees its
 * slot a moment after it reports the end), or a cancelled orphan of an earlier worker finishing.
 */
const waitUntilUsable = async (options: PollerOptions): Promise<ModelHealth | null> => {
  let said = false;
  let pauseMs: number = HEALTH_PAUSES_MS.first;
  while (!options.signal.aborted) {
    const health = await options.modelServer.health().catch(() => null);
    if (health?.status === 'READY' || health?.status === 'SETUP_FAILED') return health;
    if (!said) options.log('waiting for the model server', { health: health?.status ?? 'UNREACHABLE' });
    said = true;
    // Short at first: another slot's run that has just ended frees its slot a moment later.
    await sleep(pauseMs, undefined, { signal: options.signal }).catch(() => undefined);
    pauseMs = Math.min(pauseMs * 2, HEALTH_PAUSES_MS.last);
  }
  return null;
};

/**
 * Keeps `slots` runs going at once (one per run the model server takes): each slot waits for the
 * model, receives one message (hidden for one lease), runs it, then deletes or returns it. A slot
 * takes its next job as soon as the model server has answered the run, while the job's end is
 * still being recorded, so the model does not wait for the bookkeeping; while more jobs are being
 * ended than there are slots, none is taken, so a store that stalls stops the taking of jobs. A
 * job that throws leaves its message to come back when the lease runs out, as a dead worker's
 * would.
 */
export const pollQueue = async (options: PollerOptions): Promise<void> => {
  const slots = Math.max(1, options.slots);
  const ending = new Set<Promise<void>>();
  const slot = async () => {
    // After a run the model server answered, it is known to be up: the next job is taken without asking.
    let ready: ModelHealth | null = null;
    while (!options.signal.aborted) {
      while (ending.size > slots) await Promise.race(ending);
      const health: ModelHealth | null = ready ?? (await waitUntilUsable(options));
      if (!health || options.signal.aborted) return;
      const taken = await takeOne(options, health.setupError);
      if (taken === null) {
        ready = null;
        continue;
      }
      ready = health;
      const { rest } = taken;
      ending.add(rest);
      void rest.finally(() => ending.delete(rest));
    }
  };
  await Promise.all(Array.from({ length: slots }, slot));
  await Promise.all(ending);
};

/**
 * Receives one job and starts it. Resolves once its run has ended (or the job has, if it never ran
 * a model): with what is left of the job (`rest`: its end being recorded), or null when nothing is.
 */
const takeOne = async (
  options: PollerOptions,
  setupError: string | null,
): Promise<{ readonly rest: Promise<void> } | null> => {
  let received;
  try {
    received = await options.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: options.waitSeconds ?? 20,
        VisibilityTimeout: options.leaseSeconds,
      }),
      // Never aborted, even as the worker stops: SQS answers a long poll whose caller hung up with
      // the next message all the same, and that message stays hidden for a whole lease
      // (aws/aws-sdk-java-v2#1395). A stopping worker waits out its poll (20 s at most) and
      // hands back what it brings at once, below.
    );
  } catch (error) {
    if (options.signal.aborted) return null;
    options.log('receive failed; retrying', { error: String(error) });
    await sleep(1000);
    return null;
  }
  const message = received.Messages?.[0];
  if (message === undefined) return null;
  const receipt = message.ReceiptHandle ?? '';
  const hideFor = (seconds: number) =>
    options.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: options.queueUrl,
        ReceiptHandle: receipt,
        VisibilityTimeout: seconds,
      }),
    );
  const remove = () =>
    options.sqs.send(new DeleteMessageCommand({ QueueUrl: options.queueUrl, ReceiptHandle: receipt }));
  let body: unknown = null;
  try {
    body = JSON.parse(message.Body ?? 'null');
  } catch {
    // Not JSON: refused below like any message that is not a dispatch message.
  }
  const parsed = dispatchMessage.safeParse(body);
  if (!parsed.success) {
    options.log('dropping a message that is not a dispatch message', { messageId: message.MessageId });
    await remove();
    return null;
  }
  if (options.signal.aborted) {
    // Received as the worker began to stop: another worker takes it at once.
    await hideFor(0);
    return null;
  }
  const ran = Promise.withResolvers<undefined>();
  const job = (async () => {
    try {
      const disposition = await options.handle(
        parsed.data,
        async () => {
          await hideFor(options.leaseSeconds);
        },
        setupError,
        () => ran.resolve(undefined),
      );
      options.log('job done', { predictionId: parsed.data.predictionId, disposition });
      if (disposition.kind === 'delete') await remove();
      else await hideFor(disposition.afterSeconds);
    } catch (error) {
      options.log('job failed; its message comes back when the lease runs out', {
        predictionId: parsed.data.predictionId,
        error: String(error),
      });
    }
  })();
  const first = await Promise.race([job.then(() => 'done' as const), ran.promise.then(() => 'ran' as const)]);
  return first === 'done' ? null : { rest: job };
};
