import { setTimeout as sleep } from 'node:timers/promises';
import type { PredictionView } from '../shared/api/prediction-view.ts';
import { ENDING_KINDS } from '../shared/domain/endings.ts';
import { isTerminalStatus } from '../shared/domain/prediction.ts';
import { webhookIdOf } from '../shared/domain/webhook-signature.ts';
import { apiCall, type ApiTarget } from '../test/support/http-client.ts';
import { startReceiver } from '../test/support/receiver.ts';
import { localProcesses } from './local-endpoints.ts';

export interface ChaosOptions {
  /** The API and a token of an account of the scenario's own (its balance is checked to the kopeck). */
  readonly target: ApiTarget;
  /** The local runtime's origin, whose /_local/processes lists what may be killed. */
  readonly origin: string;
  readonly predictions: number;
  /** Each prediction sleeps a random 0 to this many seconds. */
  readonly maxSleepSeconds: number;
  /** A worker or a model server (at random) is SIGKILLed every this many seconds (random within). */
  readonly killEverySeconds: readonly [number, number];
  /** Share of webhook deliveries the receiver fails at random (never a third time in a row for one webhook id). */
  readonly webhookFailureRate: number;
  /** Give up waiting for predictions to end, and for their webhooks, after this long. */
  readonly timeoutMs: number;
  readonly log: (line: string) => void;
  /** The models whose processes are killed: by default only prognoz/echo's, which the scenario runs. */
  readonly model?: string;
}

export interface ChaosReport {
  readonly predictions: number;
  readonly seconds: number;
  readonly kills: { readonly workers: number; readonly modelServers: number };
  readonly outcomes: Record<string, number>;
  /** Predictions not ended when the scenario gave up. */
  readonly stuck: number;
  /** Ended failed for waiting in the queue (never expected). */
  readonly failedForWaiting: number;
  /** Ended failed after their worker was lost as often as the model allows. */
  readonly lostAfterAllAttempts: number;
  /** Ended with a status other than the one their inputs ask for (fail: true → failed), lost runs apart. */
  readonly wrongOutcome: number;
  /** Kopecks the account was charged beyond the sum of the costs its predictions record (0: nothing charged twice or missed). */
  readonly chargedBeyondCosts: number;
  /** Roubles still held at the end (0 at rest). */
  readonly held: number;
  /** Ended predictions whose terminal status no delivery brought, with a 2xx. */
  readonly webhooksMissed: number;
  /** Predictions whose deliveries carried more than one webhook id, or another id than their status's. */
  readonly webhookIdsUnstable: number;
  /** Predictions that were delivered a status other than the one they ended with. */
  readonly webhooksWrongStatus: number;
  readonly deliveries: { readonly attempts: number; readonly failedOnPurpose: number; readonly repeats: number };
}

interface Account {
  readonly balance: number;
  readonly held: number;
}

const kopecks = (roubles: number): number => Math.round(roubles * 100);
const random = (low: number, high: number): number => low + Math.random() * (high - low);

/**
 * Tens (or thousands) of echo predictions with random sleeps, some failing on purpose and some
 * canceled, while workers and model servers are SIGKILLed every few seconds and the webhook
 * receiver fails at random. Reports, from what the API and the receiver saw, whether every
 * prediction ended, was paid for exactly once, and was delivered by webhook with one stable id.
 */
export const runChaos = async (options: ChaosOptions): Promise<ChaosReport> => {
  const model = options.model ?? 'prognoz/echo';
  const started = performance.now();
  const failures = new Map<string, number>();
  let failedOnPurpose = 0;
  const receiver = await startReceiver((delivery) => {
    const id = String(delivery.headers['x-webhook-id']);
    const failed = failures.get(id) ?? 0;
    if (failed < 2 && Math.random() < options.webhookFailureRate) {
      failures.set(id, failed + 1);
      failedOnPurpose += 1;
      return Math.random() < 0.5 ? 500 : 503;
    }
    failures.set(id, 0);
    return 204;
  });
  const call = <T>(path: string, init: { method?: string; body?: unknown } = {}) =>
    apiCall<T>(options.target, path, init);
  const account = async (): Promise<Account> => (await call<Account>('account')).json;
  const before = await account();

  let killing = true;
  const kills = { workers: 0, modelServers: 0 };
  const killer = (async () => {
    while (killing) {
      await sleep(random(options.killEverySeconds[0], options.killEverySeconds[1]) * 1000);
      if (!killing) return;
      const which = Math.random() < 0.5 ? 'worker' : 'model';
      const target = (await localProcesses(options.origin)).find((p) => p.name === `${which}:${model}`);
      if (target?.pid === null || target?.pid === undefined) continue;
      try {
        process.kill(target.pid, 'SIGKILL');
        if (which === 'worker') kills.workers += 1;
        else kills.modelServers += 1;
      } catch {
        // Already gone: the supervisor is restarting it.
      }
    }
  })();

  const created: { id: string; fail: boolean }[] = [];
  const toCancel: string[] = [];
  try {
    for (let i = 0; i < options.predictions; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, options.predictions - i) }, async () => {
          const fail = Math.random() < 0.1;
          const input = {
            text: 'chaos',
            sleep: Math.round(random(0, options.maxSleepSeconds) * 10) / 10,
            fail,
            webhook: `${receiver.url}/chaos`,
          };
          const response = await call<PredictionView>(model, { method: 'POST', body: input });
          if (response.status !== 201)
            throw new Error(`create answered ${response.status}: ${JSON.stringify(response.json)}`);
          if (Math.random() < 0.05) toCancel.push(response.json.id);
          return { id: response.json.id, fail };
        }),
      );
      created.push(...batch);
    }
    options.log(`created ${created.length} predictions; ${toCancel.length} will be canceled`);
    await sleep(1000);
    await Promise.all(toCancel.map((id) => call(`predictions/${id}/cancel`, { method: 'POST' })));

    // Wait until every prediction has ended (or the time is up).
    const ended = new Map<string, PredictionView>();
    const deadline = Date.now() + options.timeoutMs;
    while (ended.size < created.length && Date.now() < deadline) {
      for (const { id } of created) {
        if (ended.has(id)) continue;
        const { json } = await call<PredictionView>(`predictions/${id}`);
        if (isTerminalStatus(json.status)) ended.set(id, json);
      }
      if (ended.size < created.length) {
        options.log(
          `${ended.size}/${created.length} ended; kills so far: ${kills.workers} workers, ${kills.modelServers} model servers`,
        );
        await sleep(2000);
      }
    }
    killing = false;
    await killer;

    // Every ended prediction's webhook, delivered (retries included) before the time is up.
    const delivered = (id: string) => receiver.accepted(id).length > 0;
    while ([...ended.keys()].some((id) => !delivered(id)) && Date.now() < deadline + 30_000) await sleep(500);

    const after = await account();
    const views = [...ended.values()];
    const outcomes: Record<string, number> = {};
    for (const view of views) outcomes[view.status] = (outcomes[view.status] ?? 0) + 1;
    const lost = (view: PredictionView) => view.error?.startsWith(ENDING_KINDS.workerLost) === true;
    const forWaiting = (view: PredictionView) =>
      [ENDING_KINDS.noCapacity, ENDING_KINDS.lostNotResumed].some((kind) => view.error?.startsWith(kind) === true);
    const canceled = new Set(toCancel);
    const wanted = new Map(created.map(({ id, fail }) => [id, fail ? 'failed' : 'succeeded']));
    const costs = views.reduce((sum, view) => sum + kopecks(view.cost ?? 0), 0);
    const deliveriesOf = (id: string) => receiver.deliveries.filter((d) => d.body.includes(`"id":"${id}"`));
    let webhooksMissed = 0;
    let webhookIdsUnstable = 0;
    let webhooksWrongStatus = 0;
    let repeats = 0;
    for (const view of views) {
      const all = deliveriesOf(view.id);
      const ids = new Set(all.map((d) => String(d.headers['x-webhook-id'])));
      if (!delivered(view.id)) webhooksMissed += 1;
      if (ids.size !== 1 || !ids.has(webhookIdOf(view.id, view.status))) webhookIdsUnstable += 1;
      if (all.some((d) => (JSON.parse(d.body) as { status: string }).status !== view.status)) webhooksWrongStatus += 1;
      repeats += Math.max(0, receiver.accepted(view.id).length - 1);
    }
    return {
      predictions: created.length,
      seconds: (performance.now() - started) / 1000,
      kills,
      outcomes,
      stuck: created.length - ended.size,
      failedForWaiting: views.filter(forWaiting).length,
      lostAfterAllAttempts: views.filter(lost).length,
      wrongOutcome: views.filter(
        (view) =>
          !lost(view) &&
          view.status !== (canceled.has(view.id) && view.status === 'canceled' ? 'canceled' : wanted.get(view.id)),
      ).length,
      chargedBeyondCosts: kopecks(before.balance) - kopecks(after.balance) - costs,
      held: after.held,
      webhooksMissed,
      webhookIdsUnstable,
      webhooksWrongStatus,
      deliveries: { attempts: receiver.deliveries.length, failedOnPurpose, repeats },
    };
  } finally {
    killing = false;
    await killer;
    await receiver.close();
  }
};
