import { randomUUID } from 'node:crypto';
import { formatTimestamp } from '../../../shared/domain/clock.ts';
import type { AccountId } from '../../../shared/domain/ids.ts';
import { DEFAULT_RETENTION_SECONDS, recordExpired, retentionFrom } from '../../../shared/domain/retention.ts';
import type { DeliveryAttempt, DeliveryLog } from '../../../shared/ports/delivery-log.ts';
import { answer } from './answer.ts';

interface Kept {
  readonly attempt: DeliveryAttempt;
  readonly predictionId: string;
  readonly model: string;
  readonly owner: AccountId;
  /** `<at>#<attempt id>`: how attempts are ordered, and what a page's `older` names. */
  readonly position: string;
  readonly expiresAtSeconds: number;
  redeliveredAtMs: number | null;
}

/** Webhook delivery attempts in memory, kept (and listed) as long as the domain's retention keeps them. */
export const inMemoryDeliveryLog = (retentionSeconds: number = DEFAULT_RETENTION_SECONDS): DeliveryLog => {
  const kept: Kept[] = [];
  const find = (predictionId: string, attempt: DeliveryAttempt) =>
    kept.find(
      (entry) =>
        entry.predictionId === predictionId && entry.attempt.id === attempt.id && entry.attempt.atMs === attempt.atMs,
    );
  return {
    record: (prediction, attempt) =>
      answer(() => {
        const id = randomUUID();
        kept.push({
          attempt: { ...attempt, id },
          predictionId: prediction.id,
          model: prediction.model,
          owner: prediction.owner,
          position: `${formatTimestamp(attempt.atMs)}#${id}`,
          expiresAtSeconds: retentionFrom(attempt.atMs, retentionSeconds).recordExpiresAtSeconds,
          redeliveredAtMs: null,
        });
      }),
    list: (predictionId) =>
      answer(() =>
        kept
          .filter((entry) => entry.predictionId === predictionId)
          .sort((a, b) => (a.position < b.position ? -1 : 1))
          .sort((a, b) => a.attempt.atMs - b.attempt.atMs)
          .map((entry) => entry.attempt),
      ),
    claimRedelivery: (predictionId, attempt, atMs) =>
      answer(() => {
        const entry = find(predictionId, attempt);
        if (entry?.attempt.outcome !== 'dead_lettered' || entry.redeliveredAtMs !== null) return false;
        entry.redeliveredAtMs = atMs;
        return true;
      }),
    releaseRedelivery: (predictionId, attempt) =>
      answer(() => {
        const entry = find(predictionId, attempt);
        if (entry) entry.redeliveredAtMs = null;
      }),
    listForAccount: (account, { before, limit, nowMs }) =>
      answer(() => {
        const newestFirst = kept
          .filter(
            (entry) =>
              entry.owner === account &&
              !recordExpired(entry.expiresAtSeconds, nowMs) &&
              (before === null || entry.position < before),
          )
          .sort((a, b) => (a.position < b.position ? 1 : -1));
        const taken = newestFirst.slice(0, limit);
        const last = taken.at(-1);
        return {
          attempts: taken.map((entry) => ({ ...entry.attempt, predictionId: entry.predictionId, model: entry.model })),
          older: newestFirst.length > limit && last ? last.position : null,
        };
      }),
  };
};
