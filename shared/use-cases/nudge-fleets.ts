import type { Fleet, FleetServices, JobQueues } from '../ports/fleet-control.ts';

export interface NudgeDeps {
  readonly queues: JobQueues;
  readonly services: FleetServices;
}

/**
 * What a nudge found: no job waiting (`idle`), a service that already wants a task (`wanted`),
 * a fleet at zero with jobs waiting, now asked for one task (`nudged`), or a call that failed.
 */
export type NudgeOutcome = 'idle' | 'wanted' | 'nudged' | 'error';

/**
 * Wakes one fleet at zero that has jobs waiting: its service is asked for one task. The fleet's
 * scaler starts from zero on the queue's metrics, which SQS stops publishing for a queue idle
 * for six hours; the nudge reads the queue itself, so the first job after a quiet night does not
 * wait for the metrics to come back. The scaler sizes the fleet from there. Only a desired count
 * of zero is ever changed, so a nudge never lowers one.
 */
export const nudgeFleet = async (deps: NudgeDeps, fleet: Fleet): Promise<Exclude<NudgeOutcome, 'error'>> => {
  if ((await deps.queues.waitingJobs(fleet.queueUrl)) === 0) return 'idle';
  if ((await deps.services.desiredTasks(fleet)) > 0) return 'wanted';
  await deps.services.setDesiredTasks(fleet, 1);
  return 'nudged';
};

/** The outcome for each fleet, by model id. */
export type NudgeReport = Readonly<Record<string, NudgeOutcome>>;

/** Nudges every fleet at once, each on its own: one that fails is reported, and the others go on. */
export const nudgeFleets = async (
  deps: NudgeDeps,
  fleets: readonly Fleet[],
  onError: (modelId: string, error: unknown) => void = () => undefined,
): Promise<NudgeReport> => {
  const outcomes = await Promise.all(
    fleets.map(async (fleet): Promise<[string, NudgeOutcome]> => {
      try {
        return [fleet.modelId, await nudgeFleet(deps, fleet)];
      } catch (error) {
        onError(fleet.modelId, error);
        return [fleet.modelId, 'error'];
      }
    }),
  );
  return Object.fromEntries(outcomes);
};
