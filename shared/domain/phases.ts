import { parseTimestamp } from './clock.ts';
import { ENDINGS } from './endings.ts';
import { isTerminal, type PhaseLimits, type Prediction } from './prediction.ts';

/**
 * How long each phase of a prediction may last, and the ending a prediction is owed once one has
 * lasted too long (interface: Queue wait and lost workers; architecture: The sweeper). The
 * worker, the sweeper and the create path ask these; none decides on its own.
 */

/** How long after its insert a prediction whose start was put off (`pending`) waits for the sweeper to start it. */
export const START_GRACE_MS = 30_000;
/** How long the sweeper keeps trying to start a prediction whose workflow never started. */
export const START_LIMIT_MS = 10 * 60_000;
/** How long after the end the sweeper leaves owed side effects to the one who ended it. */
export const EFFECTS_GRACE_MS = 30_000;

/** An ending the service owes a prediction: canceled at its deadline, or failed with the reason. */
export type OwedEnding =
  { readonly type: 'canceled'; readonly error: string } | { readonly type: 'failed'; readonly error: string };

/** Whether a prediction has had every claim it may have: a run lost this many times is not run again. */
export const attemptsUsed = (prediction: Prediction, limits: PhaseLimits): boolean =>
  prediction.attempts >= limits.maxAttempts;

/**
 * The ending a prediction is owed at `nowMs`, or null while it may go on: its deadline
 * (`Cancel-After`) has passed; its workflow never started; it overstayed the model's queue; its
 * run was lost as often as it may be; or its lost run was not taken up again in time.
 */
export const endingOwed = (prediction: Prediction, limits: PhaseLimits, nowMs: number): OwedEnding | null => {
  if (isTerminal(prediction)) return null;
  if (prediction.deadlineAt !== null && nowMs >= parseTimestamp(prediction.deadlineAt))
    return { type: 'canceled', error: ENDINGS.deadline(prediction.deadlineAt) };
  switch (prediction.status) {
    case 'pending':
      return nowMs - parseTimestamp(prediction.createdAt) > START_LIMIT_MS
        ? { type: 'failed', error: ENDINGS.notStarted }
        : null;
    // Its create started it: it has waited in the queue since then.
    case 'starting':
      return nowMs >= parseTimestamp(prediction.createdAt) + limits.queueSeconds * 1000
        ? { type: 'failed', error: ENDINGS.noCapacity(limits.queueSeconds) }
        : null;
    case 'queued':
      if (nowMs >= parseTimestamp(prediction.queuedAt) + limits.queueSeconds * 1000)
        return { type: 'failed', error: ENDINGS.noCapacity(limits.queueSeconds) };
      return attemptsUsed(prediction, limits)
        ? { type: 'failed', error: ENDINGS.workerLost(prediction.attempts) }
        : null;
    case 'processing':
      return nowMs >= lostRunEnd(prediction.startedAt, limits)
        ? { type: 'failed', error: ENDINGS.lostNotResumed(limits.queueSeconds) }
        : null;
  }
};

/** A run's longest time, then a lease for its lost worker to be noticed, then a queue wait for another worker. */
const lostRunEnd = (startedAt: string, limits: PhaseLimits): number =>
  parseTimestamp(startedAt) + (limits.runSeconds + limits.leaseSeconds + limits.queueSeconds) * 1000;

/** When the model's answer to a run claimed at `startedAt` is due: the run limit counts from the claim. */
export const runDeadline = (startedAt: string, limits: PhaseLimits): number =>
  parseTimestamp(startedAt) + limits.runSeconds * 1000;

/**
 * How long a job message that came back while its prediction is `processing` must wait before its
 * claim counts as lost (0: now). Younger than half a lease, its worker may be alive and the queue
 * may simply have delivered the message twice.
 */
export const claimLostInMs = (startedAt: string, limits: PhaseLimits, nowMs: number): number =>
  Math.max(0, parseTimestamp(startedAt) + (limits.leaseSeconds * 1000) / 2 - nowMs);

/**
 * When the sweeper must look at a prediction if nothing else moves it on: when `endingOwed` first
 * holds for its phase (for a running one, only once its worker has had a lease to stop it at its
 * deadline), when a starting one's start is overdue, or when an ended one's side effects are.
 */
export const sweepDeadline = (prediction: Prediction, limits: PhaseLimits): number | null => {
  const phaseEnd = phaseDeadline(prediction, limits);
  if (isTerminal(prediction) || prediction.deadlineAt === null || phaseEnd === null) return phaseEnd;
  // A running prediction's worker stops it at its deadline; the sweeper steps in only if that worker is lost.
  const grace = prediction.status === 'processing' ? limits.leaseSeconds * 1000 : 0;
  return Math.min(phaseEnd, parseTimestamp(prediction.deadlineAt) + grace);
};

const phaseDeadline = (prediction: Prediction, limits: PhaseLimits): number | null => {
  switch (prediction.status) {
    case 'pending':
      return parseTimestamp(prediction.createdAt) + START_GRACE_MS;
    // Only a create that died between its insert and its start leaves one unstarted: the sweeper
    // finds that out at its queue limit, rather than look at every prediction the queue holds.
    case 'starting':
      return parseTimestamp(prediction.createdAt) + limits.queueSeconds * 1000;
    case 'queued':
      return parseTimestamp(prediction.queuedAt) + limits.queueSeconds * 1000;
    case 'processing':
      return lostRunEnd(prediction.startedAt, limits);
    case 'succeeded':
    case 'failed':
    case 'canceled':
      if (prediction.effects.length === 0) return null;
      return parseTimestamp(prediction.completedAt ?? prediction.createdAt) + EFFECTS_GRACE_MS;
  }
};
