import { createHash } from 'node:crypto';
import type { PredictionId } from './ids.ts';

/** How long a key answers with its first prediction (interface: Idempotency). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 3600;

/** A create's claim on its `Idempotency-Key`, recorded in the same write as the prediction it makes. */
export interface IdempotencyClaim {
  /** The key is any printable text of the caller's, up to 255 characters: its hash makes a fixed-size table key. */
  readonly keyHash: string;
  readonly fingerprint: string;
  /** Epoch seconds; an earlier claim that expired before this no longer counts. */
  readonly madeAtSeconds: number;
  readonly expiresAtSeconds: number;
}

/** What the create that first used a key left behind. */
export interface PriorClaim {
  readonly predictionId: PredictionId;
  readonly fingerprint: string;
}

export const claimIdempotencyKey = (key: string, fingerprint: string, nowMs: number): IdempotencyClaim => {
  const madeAtSeconds = Math.floor(nowMs / 1000);
  return {
    keyHash: createHash('sha256').update(key, 'utf8').digest('hex'),
    fingerprint,
    madeAtSeconds,
    expiresAtSeconds: madeAtSeconds + IDEMPOTENCY_WINDOW_SECONDS,
  };
};
