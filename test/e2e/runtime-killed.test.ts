import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { alive, childPids, commandLine } from '../../bench/processes.ts';
import { startRuntimeProcess } from '../support/runtime-process-child.ts';

/** Every process below `pid`, depth first. */
const descendants = (pid: number): number[] => childPids(pid).flatMap((child) => [child, ...descendants(child)]);

let runtime: ChildProcess | undefined;
let started: number[] = [];
afterAll(() => {
  // Should the test fail, nothing of it stays.
  runtime?.kill('SIGKILL');
  for (const pid of started.filter(alive)) process.kill(pid, 'SIGKILL');
});

it('a local runtime killed outright leaves none of its processes running: workers, model servers and their own workers, emulators', async () => {
  const { child, ready } = startRuntimeProcess();
  runtime = child;
  await ready;
  const named = (pattern: RegExp) => started.filter((running) => pattern.test(commandLine(running)));
  // A model server starts its own worker after it serves its health check.
  for (let waited = 0; waited < 60_000; waited += 250) {
    started = descendants(child.pid ?? 0);
    if (named(/coglet\.server\._run_worker/).length === named(/cog\.server\.http/).length) break;
    await sleep(250);
  }
  // What must end with it: each a process of a group of its own, or of the emulators' process.
  expect(named(/worker\/main\.ts/).length).toBeGreaterThan(0);
  expect(named(/cog\.server\.http/).length).toBeGreaterThan(0);
  expect(named(/coglet\.server\._run_worker/).length).toBeGreaterThan(0);
  expect(named(/DynamoDBLocal|dynamodbv2\.local/).length).toBe(1);

  child.kill('SIGKILL');
  // Within the workers' stop grace and the SIGKILL that follows it.
  for (let waited = 0; waited < 15_000 && started.some(alive); waited += 250) await sleep(250);
  expect(started.filter(alive).map((left) => `${String(left)} ${commandLine(left)}`)).toEqual([]);
}, 180_000);
