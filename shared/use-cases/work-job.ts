import { ENDINGS } from '../domain/endings.ts';
import type { IdGenerator, PredictionId } from '../domain/ids.ts';
import { phaseLimitsOf } from '../catalog/definition.ts';
import { claimJob } from './claim-job.ts';
import { endUnlessEnded, type EffectDeps } from './end-prediction.ts';
import { runPrediction, type RunDeps, type RunOutcome } from './run-prediction.ts';

/** What becomes of a job message once its job is done with. */
export type JobDisposition =
  | { readonly kind: 'delete' }
  /** Back to the queue after this long (0: at once, for another worker). */
  | { readonly kind: 'return'; readonly afterSeconds: number };

/** What a worker needs for every job: the run's needs less those of one job, and how to claim. */
export interface WorkDeps extends Omit<RunDeps, 'effects' | 'renewLease' | 'runEnded'> {
  /** The ending's collaborators, less the execution's end, which each job's task token does. */
  readonly ending: Omit<EffectDeps, 'stopExecution'>;
  /** New claim ids. */
  readonly ids: IdGenerator;
  /** Counts a lost worker (a metric the operators' alarm watches). */
  readonly countLost: () => void;
  /** Keeps the worker from being scaled in while `run` goes on (ECS task protection). */
  readonly protecting: <T>(run: () => Promise<T>) => Promise<T>;
}

/** One job message, as the poller hands it over. */
export interface Job {
  readonly predictionId: PredictionId;
  /** Ends the prediction's execution: with the job's task token, used once by whoever ends it. */
  readonly stopExecution: EffectDeps['stopExecution'];
  readonly renewLease: () => Promise<void>;
  /** The model server failed its setup: the job is ended with why, not run. */
  readonly setupError: string | null;
  /** The model server has ended the run, its result in hand: the slot takes its next job. */
  readonly runEnded: () => void;
}

/**
 * One job: its prediction claimed (or why not: ended, or claimed so lately its worker may be
 * alive), ended at once when the model cannot run anything, else run (runPrediction). A run
 * requeued or handed back goes back to the queue at once, for the next worker whose model server
 * is up.
 */
export const workJob = async (deps: WorkDeps, job: Job): Promise<JobDisposition> => {
  const effects: EffectDeps = { ...deps.ending, stopExecution: job.stopExecution };
  const id = job.predictionId;
  const limits = phaseLimitsOf(deps.model);
  const taken = await claimJob({ ...deps, catalog: deps.ending.catalog, limits, effects }, id);
  if (taken.kind === 'done') return { kind: 'delete' };
  if (taken.kind === 'later') return { kind: 'return', afterSeconds: Math.ceil(taken.afterMs / 1000) };
  if (job.setupError !== null) {
    // The model cannot run anything: its predictions end at once with why, rather than wait out the queue.
    await endUnlessEnded(effects, id, {
      type: 'failed',
      atMs: deps.clock.now(),
      by: 'worker',
      claim: taken.prediction.claim,
      error: ENDINGS.setupFailed(job.setupError),
      runtimeMs: null,
    });
    return { kind: 'delete' };
  }
  const outcome: RunOutcome = await deps.protecting(() =>
    runPrediction({ ...deps, effects, renewLease: job.renewLease, runEnded: job.runEnded }, taken.prediction),
  );
  deps.log('run over', { predictionId: id, outcome });
  return outcome === 'requeued' || outcome === 'handedBack' ? { kind: 'return', afterSeconds: 0 } : { kind: 'delete' };
};
