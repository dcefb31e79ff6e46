import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { accountOf, call, createOtherAccount, runtime, untilTerminal } from './api.ts';
import { requestHead, type RawResponse } from './raw-http.ts';

/**
 * What the hostile-client tests share: an account of their own, the local runtime's log and
 * in-flight count, and the check that nothing a misbehaving client did was left behind.
 */

export const origin = () => runtime().origin;
const STARTING_KOPECKS = 100_000;
let token = '';
let logsBefore = 0;

/** Makes the test file's own account and marks where its part of the runtime's log begins. */
export const openHostileAccount = async (): Promise<string> => {
  token = await createOtherAccount({ balanceKopecks: STARTING_KOPECKS, ratePerSecond: 1000 });
  logsBefore = (await logLines()).length;
  return token;
};

const logLines = async (): Promise<string[]> =>
  ((await (await fetch(`${origin()}/_local/logs`)).json()) as { lines: string[] }).lines;

export const inFlight = async (): Promise<number> =>
  ((await (await fetch(`${origin()}/_local/requests`)).json()) as { in_flight: number }).in_flight;

/** Until no handler works on an API request; fails after `withinMs`. */
export const untilIdle = async (withinMs: number): Promise<void> => {
  const deadline = Date.now() + withinMs;
  while ((await inFlight()) > 0) {
    if (Date.now() > deadline) throw new Error(`${await inFlight()} requests still in flight after ${withinMs} ms`);
    await sleep(25);
  }
};

/** The service still answers a well-behaved client. */
export const expectServiceAnswers = async () => {
  const account = await call('account', { token });
  expect(account.status).toBe(200);
};

export const auth = (): [string, string] => ['authorization', `Bearer ${token}`];

export const jsonHead = (path: string, body: string, headers: readonly (readonly [string, string])[] = []) =>
  requestHead('POST', path, [
    auth(),
    ['content-type', 'application/json'],
    ['content-length', String(Buffer.byteLength(body))],
    ...headers,
  ]);

/** Every prediction of the test account, newest first (one page is enough here). */
export const predictionsOfAccount = async (): Promise<PredictionView[]> =>
  (await call<{ results: PredictionView[] }>('predictions', { token })).json.results;

/** An error answered by the edge or a handler: JSON in the one error shape. */
export const expectErrorShape = (response: RawResponse | undefined, status: number, code: string) => {
  expect(response?.status).toBe(status);
  expect(response?.headers['content-type']).toBe('application/json');
  expect(JSON.parse(response?.body ?? 'null')).toMatchObject({
    error: { code, message: expect.any(String) as string, request_id: expect.any(String) as string },
  });
};

/**
 * Nothing the file's clients did was logged as a failure of the service; every prediction they
 * made ended, nothing is held, and the balance matches the costs.
 */
export const expectNothingLeftBehind = async () => {
  const failures = (await logLines())
    .slice(logsBefore)
    .filter((line) => /local API front|"level":"ERROR"|unhandled|Unhandled/.test(line));
  expect(failures).toEqual([]);
  await untilIdle(1000);
  const made = await predictionsOfAccount();
  expect(made.length).toBeLessThan(100);
  const ended = await Promise.all(made.map((p) => untilTerminal(p.id, 60_000, { token })));
  const charged = ended.reduce((sum, p) => sum + Math.round((p.cost ?? 0) * 100), 0);
  const account = await accountOf(token);
  expect(account.held).toBe(0);
  expect(Math.round(account.balance * 100)).toBe(STARTING_KOPECKS - charged);
  expect(Math.round(account.spent_this_month * 100)).toBe(charged);
};
