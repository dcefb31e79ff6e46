import { describe, expect, it } from 'vitest';
import { reservationOf, reservationRefusal, settlementOf } from '../../shared/domain/billing.ts';
import { readAt, RECORD_KEPT_AFTER_DATA_SECONDS, retentionFrom } from '../../shared/domain/retention.ts';
import { T0 } from '../support/in-memory/clock.ts';
import { failedByWorkflow, freshOwner, processing, startingPrediction, succeeded } from '../support/predictions.ts';

const hold = { kopecks: 30, month: '2026-11' };

describe('the hold a new prediction reserves', () => {
  it('moves the hold from the available funds to the month, and asks that both have room under the limit it was reckoned against', () => {
    expect(reservationOf(hold, 100)).toEqual({
      ok: true,
      value: {
        moves: { balanceKopecks: 0, availableKopecks: -30, month: '2026-11', spentKopecks: 0, committedKopecks: 30 },
        minAvailableKopecks: 30,
        maxCommittedKopecks: 70,
        limitKopecks: 100,
      },
    });
    expect(reservationOf(hold, null).ok && reservationOf(hold, null)).toMatchObject({
      value: { maxCommittedKopecks: null, limitKopecks: null },
    });
  });

  it('is refused at once when the hold alone is over the limit', () => {
    const refused = reservationOf(hold, 29);
    expect(refused.ok ? refused.value : refused.error.code).toBe('monthly_limit_reached');
  });

  it('is refused for funds first, then for the limit', () => {
    const reservation = reservationOf(hold, 100);
    if (!reservation.ok) throw reservation.error;
    const refusal = (availableKopecks: number | null, committedKopecks: number) =>
      reservationRefusal(reservation.value, { availableKopecks, committedKopecks })?.code ?? null;
    expect(refusal(30, 70)).toBeNull();
    expect(refusal(29, 0)).toBe('insufficient_funds');
    expect(refusal(null, 0)).toBe('insufficient_funds');
    expect(refusal(30, 71)).toBe('monthly_limit_reached');
    expect(refusal(29, 71)).toBe('insufficient_funds');
  });
});

describe('the charge at the end', () => {
  const owner = freshOwner();
  const running = processing(startingPrediction({ owner, nowMs: T0, holdKopecks: 30 }), T0);
  const ended = succeeded(running, T0 + 10_000, 7000);

  it('takes the cost and gives back the rest of the hold, at the move to a terminal status', () => {
    expect(settlementOf(ended, running)).toEqual({
      balanceKopecks: -7,
      availableKopecks: 23,
      month: ended.hold.month,
      spentKopecks: 7,
      committedKopecks: -23,
    });
  });

  it('moves nothing on any other write', () => {
    expect(settlementOf(running, running)).toBeNull();
    expect(settlementOf(ended, ended)).toBeNull();
  });
});

describe('retention', () => {
  const created = startingPrediction({ owner: freshOwner(), nowMs: T0 });
  const ended = failedByWorkflow(created, T0);
  const retention = retentionFrom(T0, 3600);

  it('keeps the data for the retention period, the record a while longer', () => {
    expect(retention).toEqual({
      dataExpiresAtMs: T0 + 3_600_000,
      recordExpiresAtSeconds: T0 / 1000 + 3600 + RECORD_KEPT_AFTER_DATA_SECONDS,
    });
  });

  it('reads an ended prediction whole, then without its data, then not at all', () => {
    expect(readAt(ended, retention, retention.dataExpiresAtMs - 1)).toBe(ended);
    expect(readAt(ended, retention, retention.dataExpiresAtMs)).toMatchObject({ input: {}, dataRemoved: true });
    expect(readAt(ended, retention, retention.recordExpiresAtSeconds * 1000)).toBeNull();
    expect(readAt(created, { dataExpiresAtMs: null, recordExpiresAtSeconds: null }, T0 + 1e12)).toBe(created);
  });
});
