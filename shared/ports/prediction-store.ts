import type { ClaimTerms } from '../domain/claim.ts';
import type { PrognozError } from '../domain/errors.ts';
import type { AccountId, PredictionId } from '../domain/ids.ts';
import type { IdempotencyClaim, PriorClaim } from '../domain/idempotency.ts';
import type { Prediction, PredictionStatus, TerminalPrediction } from '../domain/prediction.ts';
import type { Result } from '../domain/result.ts';

export interface RunUpdate {
  readonly progress?: number;
  readonly logs?: string;
  /** Null once the pieces outgrew what a prediction keeps. */
  readonly streamed?: readonly string[] | null;
}

/**
 * What an insert did: recorded the prediction; found the idempotency key already claimed; or found
 * the account's monthly limit no longer the one given, or the account gone (read it again). The
 * last two wrote nothing.
 */
export type Inserted =
  | { readonly kind: 'inserted' }
  | { readonly kind: 'key_taken'; readonly prior: PriorClaim }
  | { readonly kind: 'limit_changed' };

/** The port through which everything reads and writes predictions. */
/** What a scan for unfinished predictions found. */
export interface ActivePredictions {
  readonly predictions: readonly Prediction[];
  /** Each record that is a prediction's but does not read as one: its key, and what is wrong with it. */
  readonly unreadable: readonly { readonly key: string; readonly problem: string }[];
}

export interface PredictionStore {
  /**
   * Records a new prediction and reserves its hold, in one transaction, as the domain's
   * `reservationOf` says: the account's available funds must cover the hold (else
   * `insufficient_funds`), and with a monthly limit the month's committed spend plus the hold
   * must stay within it (else `monthly_limit_reached`). `limitKopecks` is the limit as the caller
   * read it, perhaps a while ago: the write holds only while the account's limit is still that
   * (else `limit_changed`). With an idempotency claim, the claim is recorded in the same
   * transaction, and a live claim on the same key wins over everything else: then nothing is
   * written and the prior claim comes back.
   */
  insert(
    prediction: Prediction,
    limitKopecks: number | null,
    claim?: IdempotencyClaim | null,
  ): Promise<Result<Inserted, PrognozError>>;
  /**
   * The prediction as it stands (a consistent read), as the domain's `readAt` reads it now: null
   * when it does not exist or its record has expired, without its data once that has expired.
   */
  get(id: PredictionId): Promise<Prediction | null>;
  /**
   * Writes `next` only if the stored prediction is still as `expected` was read (status, claim,
   * attempts); false when it was not. A move to a terminal status also moves the account's money
   * as the domain settles it (`settlementOf`: its cost charged, its hold released) in the same
   * write, so a repeated finalize can never charge twice; and it starts the prediction's
   * retention (`retentionFrom`) from now.
   */
  replace(next: Prediction, expected: Prediction): Promise<boolean>;
  /**
   * Claims a prediction that waits for a worker in one conditional write, without reading it
   * first: only while it meets the terms (the domain's `meetsClaimTerms`), it becomes `processing`
   * under the terms' claim, as the domain's `claimed` transition moves it (its sweep time kept), and
   * comes back so. Null, and nothing written, when it does not meet them (gone, not waiting, or
   * owed an ending): the caller reads it and decides.
   */
  claimWaiting(id: PredictionId, terms: ClaimTerms): Promise<Extract<Prediction, { status: 'processing' }> | null>;
  /**
   * Moves when the sweeper next looks at an active prediction, only while it is still as
   * `expected` was read (status, claim, attempts); nothing else of it is written, so a run's
   * records go on beside it. False when it was not.
   */
  lookAgainAt(expected: Prediction, sweepAtMs: number): Promise<boolean>;
  /** Just the status and claim: what a worker checks every second to learn that its run was canceled or taken over. */
  statusOf(id: PredictionId): Promise<{ readonly status: PredictionStatus; readonly claim: string | null } | null>;
  /**
   * Records how the model's run stands (progress, the tail of its logs, its streamed output
   * pieces) on a prediction that is still processing under `claim`; fields not given are kept.
   * False, and nothing recorded, when it is not (ended, or taken over).
   */
  recordRun(id: PredictionId, claim: string, run: RunUpdate): Promise<boolean>;
  /**
   * Records what an ended prediction still owes, as `withEffectsDone` left it; with nothing left
   * (`sweepAtMs` null), it leaves the sweeper's index.
   */
  effectsDone(settled: TerminalPrediction): Promise<void>;
  /**
   * Removes an ended prediction's input, output and logs once its retention period is over (it
   * then reads `data_removed`); false when it is not over yet, or was done already.
   */
  removeData(id: PredictionId, nowMs: number): Promise<boolean>;
  /** Ids of ended predictions whose data is due for removal, at most `limit` (as `due`). */
  dataDue(nowMs: number, limit: number): Promise<PredictionId[]>;
  /**
   * Ids of predictions whose sweep deadline has passed, at most `limit`, the earliest first within
   * each shard of the index (architecture: The sweeper). Each shard gives its share of `limit`, so
   * fewer may come back while more are due: the next sweep takes them.
   */
  due(nowMs: number, limit: number): Promise<PredictionId[]>;
  /**
   * Every prediction not yet in a terminal status (a full scan: for local recovery only), and the
   * records of predictions that cannot be read back as one (left by another version, or damaged).
   */
  listActive(): Promise<ActivePredictions>;
  /**
   * One page of an account's own predictions, newest first, from its index by creation time.
   * Eventually consistent: a prediction created a moment ago may not be there yet. The work per
   * page is bounded, so a sparse filter may give fewer than `limit` with `older`/`newer` still set.
   */
  listOwned(owner: AccountId, query: OwnedPredictionsQuery): Promise<OwnedPredictionsPage>;
}

/** A place in an account's predictions by creation time; the id orders those created together. */
export interface ListPosition {
  readonly createdAt: string;
  readonly id: PredictionId;
}

export interface OwnedPredictionsQuery {
  /** `older` walks down from the newest (the order pages show); `newer` walks back up. */
  readonly toward: 'older' | 'newer';
  /** Start just past this position; without one, at the newest end (or the oldest, toward `newer`). */
  readonly after?: ListPosition;
  /** Created at or after this timestamp (stored form, `2026-11-21T18:27:49.123000Z`). */
  readonly createdAfter?: string;
  /** Created before this timestamp (stored form). */
  readonly createdBefore?: string;
  readonly model?: string;
  readonly status?: PredictionStatus;
  readonly limit: number;
}

export interface OwnedPredictionsPage {
  /** Newest first. */
  readonly predictions: readonly Prediction[];
  /** Where the predictions older than this page begin (just past it); null when none are left. */
  readonly older: ListPosition | null;
  /** Where the predictions newer than this page begin (just past it); null when none are left. */
  readonly newer: ListPosition | null;
}
