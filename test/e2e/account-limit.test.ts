import { describe, expect, it } from 'vitest';
import type { AccountView } from '../../shared/api/account-view.ts';
import { call, createPrediction } from '../support/api.ts';
import { newAccountWithOwner } from '../support/owners.ts';

type ErrorBody = { error: { code: string } };

const setLimit = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  call<AccountView & ErrorBody>('account', { method: 'PATCH', token, body, headers });

describe('the monthly limit, set by the account owner (PATCH /account)', () => {
  it('is set and removed by the owner, shown by GET /account, and a create beyond it is refused with 402', async () => {
    const { session, apiToken } = await newAccountWithOwner({ balanceKopecks: 100_000 });

    const zero = await setLimit(session, { monthly_limit: 0 });
    expect(zero.status).toBe(200);
    expect(zero.json).toMatchObject({ monthly_limit: 0, balance: 1000 });
    expect((await call<AccountView>('account', { token: apiToken })).json.monthly_limit).toBe(0);
    const refused = await createPrediction({ text: 'over the limit' }, { token: apiToken });
    expect(refused.status).toBe(402);
    expect(refused.json).toMatchObject({ error: { code: 'monthly_limit_reached' } });

    // Without a limit, a prediction runs and costs something.
    expect((await setLimit(session, { monthly_limit: null })).json.monthly_limit).toBeNull();
    const paid = await createPrediction({ sleep: 0.5 }, { token: apiToken, headers: { prefer: 'wait' } });
    expect(paid.json.status).toBe('succeeded');
    const { spent_this_month: spent } = (await call<AccountView>('account', { token: apiToken })).json;
    expect(spent).toBeGreaterThan(0);

    // A limit at this month's spend leaves no room for another prediction's hold (0.30 ₽ for echo);
    // raised by the hold, it does.
    expect((await setLimit(session, { monthly_limit: spent })).json.monthly_limit).toBe(spent);
    const beyond = await createPrediction({ text: 'beyond' }, { token: apiToken });
    expect(beyond.status).toBe(402);
    expect(beyond.json).toMatchObject({ error: { code: 'monthly_limit_reached' } });
    const raised = Math.round((spent + 0.3) * 100) / 100;
    expect((await setLimit(session, { monthly_limit: raised })).json.monthly_limit).toBe(raised);
    expect((await createPrediction({ text: 'within' }, { token: apiToken })).status).toBe(201);
    expect((await call<AccountView>('account', { token: session })).json.monthly_limit).toBe(raised);
  });

  it('is never changed with an API token (a leaked token must not raise the limit), nor by a bad body', async () => {
    const { session, apiToken } = await newAccountWithOwner({ balanceKopecks: 10_000, monthlyLimitKopecks: 500 });

    const byToken = await setLimit(apiToken, { monthly_limit: 1_000_000 });
    expect(byToken.status).toBe(403);
    expect(byToken.json.error.code).toBe('owner_sign_in_required');

    for (const body of [
      {},
      { monthly_limit: -1 },
      { monthly_limit: 0.001 },
      { monthly_limit: 12.345 },
      { monthly_limit: '100' },
      { monthly_limit: 1e13 },
      { monthly_limit: 100, currency: 'RUB' },
      { limit: 100 },
      [100],
    ]) {
      const response = await setLimit(session, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json.error.code, JSON.stringify(body)).toBe('invalid_body');
    }
    const broken = await setLimit(session, '{"monthly_limit": ', { 'content-type': 'application/json' });
    expect(broken.status).toBe(400);
    expect(broken.json.error.code).toBe('invalid_json');

    expect((await call<AccountView>('account', { token: session })).json.monthly_limit).toBe(5);
  });
});
