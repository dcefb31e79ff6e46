import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { alive, childPids, commandLine, startReadyChild } from '../../bench/processes.ts';
import { startEmulatorsProcess } from '../../local/emulators-process.ts';
import { LOCAL_REGION, REPO_ROOT } from '../../local/paths.ts';

const gone = async (pids: readonly number[], withinMs: number): Promise<number[]> => {
  const deadline = Date.now() + withinMs;
  let left = pids.filter(alive);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = left.filter(alive);
  }
  return left;
};

/** DynamoDB Local (java) and moto (python), the emulators' process's children. */
const emulatorChildren = (pid: number) => {
  const children = childPids(pid);
  expect(children.map(commandLine).join('\n')).toMatch(/DynamoDBLocal|ServerRunner/);
  return children;
};

describe("the emulators' own process (architecture: Local runtime)", () => {
  it('serves DynamoDB through its metering proxy, counts the calls, and stops with everything it started', async () => {
    const emulators = await startEmulatorsProcess({});
    const children = emulatorChildren(emulators.pid);
    try {
      const before = await emulators.meter();
      const client = new DynamoDBClient({
        endpoint: emulators.dynamoEndpoint,
        region: LOCAL_REGION,
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      await client.send(new ListTablesCommand({}));
      await client.send(new ListTablesCommand({}));
      client.destroy();
      const after = await emulators.meter();
      expect((after.dynamodb.ListTables?.calls ?? 0) - (before.dynamodb.ListTables?.calls ?? 0)).toBe(2);
    } finally {
      await emulators.stop();
    }
    expect(await gone([emulators.pid, ...children], 10_000)).toEqual([]);
  });

  it('tells the runtime when it ends without being stopped, a meter read then fails instead of hanging, and its children end with it', async () => {
    const told: string[] = [];
    const emulators = await startEmulatorsProcess({ onEnded: (why) => told.push(why) });
    const children = emulatorChildren(emulators.pid);
    try {
      const reading = emulators.meter();
      process.kill(emulators.pid, 'SIGKILL');
      await reading.catch(() => undefined);
      for (let i = 0; i < 100 && told.length === 0; i++) await sleep(50);
      await expect(emulators.meter()).rejects.toThrow(/ended/);
      expect(told).toEqual([expect.stringMatching(/the emulators' process ended \(SIGKILL\)/)]);
      expect(emulators.running()).toBe(false);
      expect(await gone(children, 20_000)).toEqual([]);
    } finally {
      await emulators.stop();
      for (const pid of children.filter(alive)) process.kill(pid, 'SIGKILL');
    }
  });

  it('leaves nothing running when the runtime holding it is killed outright', async () => {
    const holder = await startReadyChild<{ pid: number }>(
      process.execPath,
      ['--import', 'tsx', path.join(REPO_ROOT, 'test', 'support', 'emulators-holder.ts')],
      { timeoutMs: 120_000, log: () => undefined },
    );
    const children = emulatorChildren(holder.ready.pid);
    holder.child.kill('SIGKILL');
    expect(await gone([holder.ready.pid, ...children], 20_000)).toEqual([]);
  });
});
