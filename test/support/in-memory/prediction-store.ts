import { reservationOf, reservationRefusal, settlementOf } from '../../../shared/domain/billing.ts';
import { claimedOnTerms, meetsClaimTerms } from '../../../shared/domain/claim.ts';
import type { AccountId, PredictionId } from '../../../shared/domain/ids.ts';
import type { IdempotencyClaim, PriorClaim } from '../../../shared/domain/idempotency.ts';
import { isTerminal, withDataRemoved, type Prediction } from '../../../shared/domain/prediction.ts';
import {
  dataExpired,
  DEFAULT_RETENTION_SECONDS,
  readAt,
  recordExpired,
  retentionFrom,
  type Retention,
} from '../../../shared/domain/retention.ts';
import { err, ok } from '../../../shared/domain/result.ts';
import { keepLogTail, keepProgress, keepStreamed } from '../../../shared/domain/run-report.ts';
import type { ListPosition, OwnedPredictionsQuery, PredictionStore } from '../../../shared/ports/prediction-store.ts';
import { answer } from './answer.ts';
import { Ledger } from './ledger.ts';

/** Where a stored prediction is in the sweeper's view: due for a look, due for its data's removal, or neither. */
type SweepEntry = { readonly kind: 'sweep' | 'data'; readonly atMs: number } | null;

interface Stored {
  readonly prediction: Prediction;
  /** Set when it ends, as the domain's retention rules say. */
  readonly retention: Retention | null;
  readonly sweep: SweepEntry;
}

interface ClaimRecord {
  readonly prior: PriorClaim;
  readonly expiresAtSeconds: number;
}

export interface InMemoryPredictionStoreOptions {
  /** The accounts' money, shared with the account store (inMemoryAccountStore(ledger)). */
  readonly ledger?: Ledger;
  readonly retentionSeconds?: number;
  readonly now?: () => number;
}

const sweepEntryOf = (prediction: Prediction): SweepEntry =>
  prediction.sweepAtMs === null ? null : { kind: 'sweep', atMs: prediction.sweepAtMs };

/** Positions in an account's listing compare by creation time, then id, as its index orders them. */
const compare = (a: ListPosition, b: ListPosition): number =>
  a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

const positionOf = (prediction: Prediction): ListPosition => ({ createdAt: prediction.createdAt, id: prediction.id });

/**
 * The prediction store in memory, with the DynamoDB adapter's semantics (test/contract holds both
 * to one contract): inserts reserve the hold and check it as the domain says, a conditional
 * replace settles the account at the end, retention and expiry follow the domain's rules.
 */
export const inMemoryPredictionStore = (
  options: InMemoryPredictionStoreOptions = {},
): PredictionStore & { readonly ledger: Ledger } => {
  const ledger = options.ledger ?? new Ledger();
  const retentionSeconds = options.retentionSeconds ?? DEFAULT_RETENTION_SECONDS;
  const now = options.now ?? Date.now;
  const items = new Map<PredictionId, Stored>();
  const claims = new Map<string, ClaimRecord>();

  const claimKey = (owner: AccountId, claim: IdempotencyClaim) => `${owner}#${claim.keyHash}`;
  /** A claim on the key that has not expired by the time `claim` was made. */
  const liveClaim = (owner: AccountId, claim: IdempotencyClaim | null): PriorClaim | null => {
    if (claim === null) return null;
    const record = claims.get(claimKey(owner, claim));
    return record && record.expiresAtSeconds >= claim.madeAtSeconds ? record.prior : null;
  };
  const readable = (stored: Stored): Prediction | null =>
    readAt(
      stored.prediction,
      {
        dataExpiresAtMs: stored.retention?.dataExpiresAtMs ?? null,
        recordExpiresAtSeconds: stored.retention?.recordExpiresAtSeconds ?? null,
      },
      now(),
    );
  const unchangedSince = (stored: Prediction, expected: Prediction): boolean =>
    stored.status === expected.status &&
    stored.attempts === expected.attempts &&
    (expected.status !== 'processing' || (stored.status === 'processing' && stored.claim === expected.claim));
  const dueOf = (kind: 'sweep' | 'data', nowMs: number, limit: number): PredictionId[] =>
    [...items.entries()]
      .flatMap(([id, stored]) =>
        stored.sweep?.kind === kind && stored.sweep.atMs <= nowMs ? [{ id, atMs: stored.sweep.atMs }] : [],
      )
      .sort((a, b) => a.atMs - b.atMs)
      .slice(0, limit)
      .map((entry) => entry.id);

  return {
    ledger,
    insert: (prediction, limitKopecks, claim = null) =>
      answer(() => {
        const prior = liveClaim(prediction.owner, claim);
        // A live claim on the key decides whatever else would refuse the insert.
        if (prior) return ok({ kind: 'key_taken', prior } as const);
        const reservation = reservationOf(prediction.hold, limitKopecks);
        if (!reservation.ok) return err(reservation.error);
        const account = ledger.account(prediction.owner);
        if (account === undefined || account.monthlyLimitKopecks !== limitKopecks)
          return ok({ kind: 'limit_changed' } as const);
        const refused = reservationRefusal(reservation.value, {
          availableKopecks: account.availableKopecks,
          committedKopecks: ledger.spend(prediction.owner, prediction.hold.month).committedKopecks,
        });
        if (refused) return err(refused);
        if (items.has(prediction.id)) throw new Error(`prediction ${prediction.id} exists already`);
        ledger.apply(prediction.owner, reservation.value.moves);
        ledger.countRun(prediction.owner, reservation.value.moves.month, prediction.model);
        items.set(prediction.id, { prediction, retention: null, sweep: sweepEntryOf(prediction) });
        if (claim !== null)
          claims.set(claimKey(prediction.owner, claim), {
            prior: { predictionId: prediction.id, fingerprint: claim.fingerprint },
            expiresAtSeconds: claim.expiresAtSeconds,
          });
        return ok({ kind: 'inserted' } as const);
      }),
    get: (id) =>
      answer(() => {
        const stored = items.get(id);
        return stored ? readable(stored) : null;
      }),
    statusOf: (id) =>
      answer(() => {
        const stored = items.get(id);
        if (!stored || recordExpired(stored.retention?.recordExpiresAtSeconds ?? null, now())) return null;
        const { prediction } = stored;
        return { status: prediction.status, claim: prediction.status === 'processing' ? prediction.claim : null };
      }),
    replace: (next, expected) =>
      answer(() => {
        const stored = items.get(next.id);
        if (!stored || !unchangedSince(stored.prediction, expected)) return false;
        const retention = isTerminal(next) ? retentionFrom(now(), retentionSeconds) : null;
        const sweep =
          sweepEntryOf(next) ??
          (retention === null ? null : { kind: 'data' as const, atMs: retention.dataExpiresAtMs });
        items.set(next.id, { prediction: next, retention, sweep });
        const settlement = settlementOf(next, expected);
        if (settlement !== null) ledger.apply(next.owner, settlement);
        return true;
      }),
    claimWaiting: (id, terms) =>
      answer(() => {
        const stored = items.get(id);
        if (!stored) return null;
        const { prediction } = stored;
        if (!meetsClaimTerms(prediction, terms)) return null;
        const claimed = claimedOnTerms(prediction, terms);
        items.set(id, { ...stored, prediction: claimed });
        return claimed;
      }),
    lookAgainAt: (expected, sweepAtMs) =>
      answer(() => {
        const stored = items.get(expected.id);
        if (!stored || isTerminal(stored.prediction) || !unchangedSince(stored.prediction, expected)) return false;
        items.set(expected.id, {
          ...stored,
          prediction: { ...stored.prediction, sweepAtMs },
          sweep: { kind: 'sweep', atMs: sweepAtMs },
        });
        return true;
      }),
    recordRun: (id, claim, run) =>
      answer(() => {
        if (run.progress === undefined && run.logs === undefined && run.streamed === undefined)
          throw new Error('recordRun: nothing to record');
        const stored = items.get(id);
        const prediction = stored?.prediction;
        if (!stored || prediction?.status !== 'processing' || prediction.claim !== claim) return false;
        items.set(id, {
          ...stored,
          prediction: {
            ...prediction,
            ...(run.progress === undefined ? {} : { progress: keepProgress(run.progress) }),
            ...(run.logs === undefined ? {} : { logs: keepLogTail(run.logs) }),
            ...(run.streamed === undefined
              ? {}
              : { streamed: run.streamed === null ? null : keepStreamed(run.streamed) }),
          },
        });
        return true;
      }),
    effectsDone: (settled) =>
      answer(() => {
        const stored = items.get(settled.id);
        // Gone, or not as it was when its effects were done: nothing is owed any more.
        if (!stored || !isTerminal(stored.prediction) || stored.prediction.status !== settled.status) return;
        const remaining = settled.effects;
        const sweep =
          settled.sweepAtMs !== null
            ? stored.sweep
            : {
                kind: 'data' as const,
                atMs: (stored.retention ?? retentionFrom(now(), retentionSeconds)).dataExpiresAtMs,
              };
        items.set(settled.id, {
          ...stored,
          prediction: {
            ...stored.prediction,
            effects: remaining,
            sweepAtMs: remaining.length > 0 ? stored.prediction.sweepAtMs : null,
          },
          sweep,
        });
      }),
    removeData: (id, nowMs) =>
      answer(() => {
        const stored = items.get(id);
        const prediction = stored?.prediction;
        if (!stored || !prediction || !isTerminal(prediction) || prediction.dataRemoved) return false;
        if (!dataExpired(stored.retention?.dataExpiresAtMs ?? null, nowMs)) return false;
        items.set(id, { ...stored, prediction: withDataRemoved(prediction), sweep: null });
        return true;
      }),
    due: (nowMs, limit) => answer(() => dueOf('sweep', nowMs, limit)),
    dataDue: (nowMs, limit) => answer(() => dueOf('data', nowMs, limit)),
    // Nothing in memory is stored but as a prediction: nothing is unreadable.
    listActive: () =>
      answer(() => ({
        predictions: [...items.values()].map((stored) => stored.prediction).filter((p) => !isTerminal(p)),
        unreadable: [],
      })),
    listOwned: (owner, query) => answer(() => listOwned(owner, query)),
  };

  function listOwned(owner: AccountId, query: OwnedPredictionsQuery) {
    const older = query.toward === 'older';
    const from = query.createdAfter ?? '';
    const to = query.createdBefore;
    const after = query.after;
    // A cursor past the end of the range has nothing beyond it; one before its start starts at its edge.
    const pastEnd = after && (older ? after.createdAt < from : to !== undefined && after.createdAt > to);
    const beforeStart = after && (older ? to !== undefined && after.createdAt > to : after.createdAt < from);
    if (pastEnd || (to !== undefined && from > to)) {
      const behind = after ?? null;
      return { predictions: [], older: older ? null : behind, newer: older ? behind : null };
    }
    const start = beforeStart ? undefined : after;
    const matched = [...items.values()]
      .filter(
        (stored) =>
          stored.prediction.owner === owner &&
          !recordExpired(stored.retention?.recordExpiresAtSeconds ?? null, now()) &&
          stored.prediction.createdAt >= from &&
          (to === undefined || stored.prediction.createdAt < to) &&
          (query.model === undefined || stored.prediction.model === query.model) &&
          (query.status === undefined || stored.prediction.status === query.status),
      )
      .sort((a, b) => (older ? -1 : 1) * compare(positionOf(a.prediction), positionOf(b.prediction)))
      .filter((stored) => !start || (older ? -1 : 1) * compare(positionOf(stored.prediction), start) > 0);
    const taken = matched.slice(0, query.limit);
    const last = taken.at(-1);
    const ahead = matched.length > query.limit && last ? positionOf(last.prediction) : null;
    const first = taken[0];
    const behind = start ? (first ? positionOf(first.prediction) : start) : null;
    const predictions = taken.flatMap((stored) => readable(stored) ?? []);
    return older
      ? { predictions, older: ahead, newer: behind }
      : { predictions: predictions.reverse(), older: behind, newer: ahead };
  }
};
