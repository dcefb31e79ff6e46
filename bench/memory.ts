import { localProcesses } from './local-endpoints.ts';
import { childPids, commandLine, peakRssMiB, resetPeakRss } from './processes.ts';

export interface TrackedProcess {
  readonly role: string;
  readonly pid: number;
  /** The model a worker, model server or predictor process serves; absent for the runtime's own processes. */
  readonly model?: string;
}

/** The model of a supervised process, from its name (`model:acme/x`, `worker:acme/x#2`: local/fleet-instances.ts). */
const modelOf = (name: string): string | undefined => /^(?:worker|model):([^#]+)/.exec(name)?.[1];

/** Peak RSS (MiB) of each process over one phase of the benchmark. */
export type PhasePeaks = Record<string, number | null>;

/**
 * The runtime's processes worth watching: itself (API, workflow, Lambdas), the emulators' process
 * (the proxies, fauxqs) and its DynamoDB Local, workers
 * and model servers — each model server with the predictor process it runs (coglet's child, which
 * holds the model).
 */
export const runtimeProcesses = async (origin: string, runtimePid: number): Promise<TrackedProcess[]> => {
  const processes = await localProcesses(origin);
  const emulators = childPids(runtimePid).find((pid) => commandLine(pid).includes('emulator-host'));
  const java = emulators && childPids(emulators).find((pid) => commandLine(pid).includes('dynamodbv2.local'));
  return [
    { role: 'API process (local runtime: API front, Lambdas, workflow)', pid: runtimePid },
    ...(emulators ? [{ role: "emulators' process (proxies, fauxqs for SQS and S3)", pid: emulators }] : []),
    ...(java ? [{ role: 'DynamoDB Local (Java)', pid: java }] : []),
    ...processes.flatMap((p) => {
      if (p.pid === null) return [];
      const model = modelOf(p.name);
      const ofModel = model === undefined ? {} : { model };
      return [
        { role: p.name, pid: p.pid, ...ofModel },
        // The predictor is coglet's own worker, which holds the model; the run-folder pruner beside
        // it (a shell loop) is not.
        ...(p.name.startsWith('model:') ? childPids(p.pid) : [])
          .filter((pid) => commandLine(pid).includes('import coglet'))
          .map((pid) => ({
            role: `${p.name} (predictor process)`,
            pid,
            ...ofModel,
          })),
      ];
    }),
  ];
};

/** Runs a phase between a reset and a read of the kernel's peak-RSS mark of each process. */
export const withPeakRss = async <T>(
  processes: readonly TrackedProcess[],
  phase: () => Promise<T>,
): Promise<{ value: T; peaks: PhasePeaks }> => {
  for (const { pid } of processes) resetPeakRss(pid);
  const value = await phase();
  return { value, peaks: Object.fromEntries(processes.map(({ role, pid }) => [role, peakRssMiB(pid)])) };
};
