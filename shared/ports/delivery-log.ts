import type { AccountId } from '../domain/ids.ts';
import type { Prediction } from '../domain/prediction.ts';

export type AttemptOutcome = 'delivered' | 'failed' | 'dead_lettered';

/** One HTTP attempt at delivering a webhook. */
export interface DeliveryAttempt {
  /** The attempt's own id in the log. */
  readonly id: string;
  readonly webhookId: string;
  readonly event: string;
  /** 1 for the first attempt, 2–4 for the retries. */
  readonly attempt: number;
  readonly atMs: number;
  readonly durationMs: number;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly outcome: AttemptOutcome;
}

/** An attempt as the sender records it; the log gives it its id. */
export type NewDeliveryAttempt = Omit<DeliveryAttempt, 'id'>;

/** An attempt as an account's delivery list shows it: with its prediction. */
export interface AccountDeliveryAttempt extends DeliveryAttempt {
  readonly predictionId: string;
  /** null for attempts recorded before the model was kept with them. */
  readonly model: string | null;
}

/**
 * What a page's `older` looks like (an attempt's time and id, as the log's index sorts them): the API
 * takes back only a position of this form.
 */
export const DELIVERY_POSITION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z#[0-9a-f-]{36}$/;

/** Newest first; `older` is where the next page starts (null: none is left). */
export interface AccountDeliveriesPage {
  readonly attempts: readonly AccountDeliveryAttempt[];
  readonly older: string | null;
}

/** The port to the record of webhook delivery attempts, by prediction and across an account. */
export interface DeliveryLog {
  record(prediction: Pick<Prediction, 'id' | 'owner' | 'model'>, attempt: NewDeliveryAttempt): Promise<void>;
  /** Every attempt for the prediction, oldest first. */
  list(predictionId: string): Promise<DeliveryAttempt[]>;
  /**
   * Takes a dead-lettered attempt for redelivery, in one conditional write: true for exactly one
   * caller however many ask at once; false when it was taken already or is not dead-lettered.
   */
  claimRedelivery(predictionId: string, attempt: DeliveryAttempt, atMs: number): Promise<boolean>;
  /** Gives a claim back (its redelivery could not be queued), so that it may be asked again. */
  releaseRedelivery(predictionId: string, attempt: DeliveryAttempt): Promise<void>;
  /** The account's attempts across its predictions, newest first, from `before` (a page's `older`) on. */
  listForAccount(
    account: AccountId,
    page: { readonly before: string | null; readonly limit: number; readonly nowMs: number },
  ): Promise<AccountDeliveriesPage>;
}
