import { formatTimestamp, parseTimestamp } from './clock.ts';
import type { PhaseLimits, Prediction } from './prediction.ts';

/**
 * A worker's claim on a prediction that waits for one, put as terms a store can check and apply
 * in the claim's one conditional write, without reading the prediction first (architecture: The
 * worker's run). Every timestamp is in the stored form (`formatTimestamp`), whose order as text
 * is its order in time.
 */
export interface ClaimTerms {
  /** The new claim's id. */
  readonly claim: string;
  /** When it is made (the run's `startedAt`): its deadline, if it has one, comes after it. */
  readonly startedAt: string;
  /** It has had fewer claims than this. */
  readonly attemptsBelow: number;
  /** Its wait in the queue (since its create while `starting`, since `queuedAt` while `queued`) began after this. */
  readonly waitBeganAfter: string;
}

export const claimTerms = (limits: PhaseLimits, nowMs: number, claim: string): ClaimTerms => ({
  claim,
  startedAt: formatTimestamp(nowMs),
  attemptsBelow: limits.maxAttempts,
  waitBeganAfter: formatTimestamp(nowMs - limits.queueSeconds * 1000),
});

/**
 * Whether a prediction may be claimed on these terms: it waits for a worker, has attempts left,
 * and is owed no ending (`endingOwed`: its deadline and its queue limit still ahead).
 */
export const meetsClaimTerms = (prediction: Prediction, terms: ClaimTerms): boolean => {
  const waitBegan =
    prediction.status === 'starting'
      ? prediction.createdAt
      : prediction.status === 'queued'
        ? prediction.queuedAt
        : null;
  return (
    waitBegan !== null &&
    prediction.attempts < terms.attemptsBelow &&
    (prediction.deadlineAt === null || parseTimestamp(prediction.deadlineAt) > parseTimestamp(terms.startedAt)) &&
    parseTimestamp(waitBegan) > parseTimestamp(terms.waitBeganAfter)
  );
};

/**
 * A prediction that meets the terms, claimed on them: what the `claimed` transition makes of it,
 * for a store that writes the claim as changes rather than as the whole prediction.
 */
export const claimedOnTerms = (
  prediction: Prediction,
  terms: ClaimTerms,
): Extract<Prediction, { status: 'processing' }> => {
  // A queued prediction's time in the queue is not part of a running one's record.
  const { queuedAt, ...waiting } = prediction as Prediction & { readonly queuedAt?: string };
  return {
    ...waiting,
    status: 'processing',
    startedAt: terms.startedAt,
    claim: terms.claim,
    attempts: prediction.attempts + 1,
    progress: null,
    streamed: [],
  };
};
