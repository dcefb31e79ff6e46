import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COGLET_RUNS_DIR, MODEL_ENTRYPOINT_ENV, WITHHELD_FROM_MODELS } from '../../infra/cog/model-entrypoint.ts';
import { localKeepRunsMinutes } from '../../local/model-env.ts';
import { processEnvironment } from '../../shared/config/environment.ts';
import { loadModelCatalog } from '../../shared/config/model-catalog.ts';
import { createPrediction, pollUntil, processNamed, untilTerminal } from '../support/api.ts';

/** Which of the credentials' variables an environment holds. */
const credentialsIn = (env: string[]) =>
  env.filter((entry) => WITHHELD_FROM_MODELS.some((name) => entry.startsWith(`${name}=`)));

/** What /proc keeps of a process: the environment it was started with, and its command line. */
const proc = (pid: number) => ({
  env: readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean),
  argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean),
});

const childrenOf = (pid: number): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(entry)] : [];
      } catch {
        return [];
      }
    });

describe('a local model server', () => {
  it("runs as the model's image runs it: through its entrypoint, with none of the machine's AWS credentials, and the pruner of coglet's run folders beside it", async () => {
    // Looked at while it runs a prediction: an idle instance is stopped after seconds here.
    const { json: created } = await createPrediction({ text: 'entrypoint', sleep: 5 });
    await pollUntil(created.id, (prediction) => prediction.status === 'processing');
    const server = await processNamed('model:prognoz/echo');
    const pid = server.pid ?? 0;
    const { env, argv } = proc(pid);
    // The entrypoint became coglet (exec): the supervisor's process is Python, not a shell.
    expect(argv.slice(1, 3)).toEqual(['-m', 'cog.server.http']);
    // Its worker has the emulators' credentials, as a task's worker has the task role's; the model has none.
    const worker = await processNamed('worker:prognoz/echo');
    expect(credentialsIn(proc(worker.pid ?? 0).env)).not.toEqual([]);
    expect(credentialsIn(env)).toEqual([]);
    expect(env.filter((entry) => entry.startsWith(`${MODEL_ENTRYPOINT_ENV.keepRunsMinutes}=`))).toEqual([]);
    const isPruner = (child: number) => {
      try {
        return proc(child).argv.includes('prognoz-prune-runs');
      } catch {
        return false; // a child that has ended meanwhile
      }
    };
    const pruners = childrenOf(pid).filter(isPruner);
    expect(pruners).toHaveLength(1);
    const pruner = proc(pruners[0] ?? 0);
    // Its folder and age: those the local runtime keeps runs for.
    expect(pruner.argv.slice(-4, -2)).toEqual([
      COGLET_RUNS_DIR,
      String(localKeepRunsMinutes(loadModelCatalog(processEnvironment()))),
    ]);
    expect(credentialsIn(pruner.env)).toEqual([]);
    expect((await untilTerminal(created.id)).status).toBe('succeeded');
  });
});
