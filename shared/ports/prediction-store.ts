import type { PrognozError } from '../domain/errors.ts';
import type { PredictionId } from '../domain/ids.ts';
import type { Prediction, PredictionStatus, TerminalPrediction } from '../domain/prediction.ts';
import type { Result } from '../domain/result.ts';

/** The port through which everything reads and writes predictions. */
export interface PredictionStore {
  /**
   * Records a new prediction and reserves its hold, in one transaction: the account's available
   * funds must cover the hold (else `insufficient_funds`), and with a monthly limit the month's
   * committed spend plus the hold must stay within it (else `monthly_limit_reached`).
   */
  insert(prediction: Prediction, limitKopecks: number | null): Promise<Result<void, PrognozError>>;
  /** The prediction as it stands (a consistent read); null when it does not exist or has expired. */
  get(id: PredictionId): Promise<Prediction | null>;
  /**
   * Writes `next` only if the stored prediction is still as `expected` was read (status, claim,
   * attempts); false when it was not. A move to a terminal status also charges its cost and
   * releases its hold, in the same transaction, so a repeated finalize can never charge twice.
   */
  replace(next: Prediction, expected: Prediction): Promise<boolean>;
  /** Just the status and claim: what a worker checks every second to learn that its run was canceled or taken over. */
  statusOf(id: PredictionId): Promise<{ readonly status: PredictionStatus; readonly claim: string | null } | null>;
  /** Records the model's progress on a prediction that is still processing under `claim`. */
  recordProgress(id: PredictionId, claim: string, fraction: number): Promise<void>;
  /**
   * Records what an ended prediction still owes, as `withEffectsDone` left it; with nothing left
   * (`sweepAtMs` null), it leaves the sweeper's index.
   */
  effectsDone(settled: TerminalPrediction): Promise<void>;
  /** Ids of predictions whose sweep deadline has passed, at most `limit` (DESIGN §2, sweeper). */
  due(nowMs: number, limit: number): Promise<PredictionId[]>;
  /** Every prediction not yet in a terminal status (a full scan: for local recovery only). */
  listActive(): Promise<Prediction[]>;
}
