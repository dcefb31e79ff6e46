import { isTerminal, withDataRemoved, type Prediction } from './prediction.ts';

/** How long an ended prediction's record (status, times, cost) outlives its data: it then reads `data_removed`. */
export const RECORD_KEPT_AFTER_DATA_SECONDS = 30 * 86_400;

/** The retention period when none is configured: 30 days. */
export const DEFAULT_RETENTION_SECONDS = 30 * 86_400;

/** When an ended prediction's data and its record expire, fixed when it ends. */
export interface Retention {
  /** When its input, output and logs are removed (epoch ms): it reads without them from then on. */
  readonly dataExpiresAtMs: number;
  /** When its record goes (epoch seconds, as a table's TTL takes it): it reads as never made from then on. */
  readonly recordExpiresAtSeconds: number;
}

/**
 * The retention of something that ends at `endedAtMs`: its data is kept for the retention period,
 * its record RECORD_KEPT_AFTER_DATA_SECONDS longer. A webhook delivery attempt is kept as long as
 * the record of a prediction that ended when it was made.
 */
export const retentionFrom = (endedAtMs: number, retentionSeconds: number): Retention => {
  const dataExpiresAtMs = endedAtMs + retentionSeconds * 1000;
  return {
    dataExpiresAtMs,
    recordExpiresAtSeconds: Math.floor(dataExpiresAtMs / 1000) + RECORD_KEPT_AFTER_DATA_SECONDS,
  };
};

/** Whether a record has expired (a table's TTL deletes it days late: it must read as gone from this moment). */
export const recordExpired = (recordExpiresAtSeconds: number | null, nowMs: number): boolean =>
  recordExpiresAtSeconds !== null && recordExpiresAtSeconds * 1000 <= nowMs;

/** Whether an ended prediction's data has expired (whether or not it has been removed yet). */
export const dataExpired = (dataExpiresAtMs: number | null, nowMs: number): boolean =>
  dataExpiresAtMs !== null && dataExpiresAtMs <= nowMs;

/**
 * A stored prediction as anyone reads it at `nowMs`, given its retention as stored (null fields:
 * not set, as on an active prediction): null once its record has expired, without its data once
 * that has, whether or not the sweeper has removed it yet.
 */
export const readAt = (
  prediction: Prediction,
  retention: { readonly dataExpiresAtMs: number | null; readonly recordExpiresAtSeconds: number | null },
  nowMs: number,
): Prediction | null => {
  if (recordExpired(retention.recordExpiresAtSeconds, nowMs)) return null;
  if (!isTerminal(prediction) || prediction.dataRemoved || !dataExpired(retention.dataExpiresAtMs, nowMs))
    return prediction;
  return withDataRemoved(prediction);
};
