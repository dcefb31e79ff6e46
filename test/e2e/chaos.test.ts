import { describe, expect, it } from 'vitest';
import { runChaos } from '../../bench/chaos-scenario.ts';
import { createOtherAccount, runtime } from '../support/api.ts';

describe('chaos', () => {
  it('under killed workers and model servers and a failing webhook receiver, every prediction ends once, is paid for once and is delivered', async () => {
    const apiToken = await createOtherAccount({ balanceKopecks: 100_000, ratePerSecond: 1000 });
    const report = await runChaos({
      target: { apiUrl: runtime().apiUrl, apiToken },
      origin: runtime().origin,
      predictions: 30,
      maxSleepSeconds: 2,
      killEverySeconds: [3, 7],
      webhookFailureRate: 0.3,
      timeoutMs: 150_000,
      log: (line) => console.log(`[chaos] ${line}`),
    });
    console.log(`[chaos] ${JSON.stringify(report)}`);

    expect(report.kills.workers + report.kills.modelServers).toBeGreaterThanOrEqual(3);
    expect(report.stuck).toBe(0);
    expect(report.failedForWaiting).toBe(0);
    expect(report.wrongOutcome).toBe(0);
    expect(report.webhooksMissed).toBe(0);
    expect(report.webhookIdsUnstable).toBe(0);
    expect(report.webhooksWrongStatus).toBe(0);
    expect(report.chargedBeyondCosts).toBe(0);
    expect(report.held).toBe(0);
  }, 240_000);
});
