import type { Clock } from '../../domain/clock.ts';
import type { ModelDefinition } from '../../catalog/definition.ts';
import type { ModelServer } from '../../ports/model-server.ts';
import type { OutputStore } from '../../ports/output-store.ts';
import type { PredictionStore } from '../../ports/prediction-store.ts';
import type { RunInputs } from '../../ports/run-inputs.ts';
import type { EffectDeps } from '../end-prediction.ts';

/** What a worker's run of a prediction it claimed needs (runPrediction). */
export interface RunDeps {
  readonly model: ModelDefinition;
  readonly store: PredictionStore;
  readonly outputs: Pick<OutputStore, 'put' | 'putFile' | 'get'>;
  readonly modelServer: ModelServer;
  /** Fetches the run's file inputs for the model server, and lets them go once it is over. */
  readonly inputs: RunInputs;
  readonly clock: Clock;
  /** How often the worker looks for a cancel (and records progress). */
  readonly checkMs: number;
  /** How often the worker renews its lease on the job (the model's heartbeat). */
  readonly heartbeatMs: number;
  /** Renews the lease: keeps the queue message hidden for another lease. */
  readonly renewLease: () => Promise<void>;
  /** Ends the prediction's execution with the job's task token (used once). */
  readonly effects: EffectDeps;
  /** Resolves after `ms` on the clock, or at once when `signal` aborts; never rejects. */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  /** Aborted at the worker's drain deadline: a run still going is stopped and handed back to the queue. */
  readonly handBack?: AbortSignal;
  /** Told once the model server has answered the run (its result in hand, before the end is recorded). */
  readonly runEnded?: () => void;
}

export type RunOutcome =
  /** This worker ended the prediction. */
  | 'ended'
  /** Someone else ended it (a cancel, the sweeper) or took the run over: the model was stopped. */
  | 'stopped'
  /** The model server went away mid-run: the prediction is back in the queue for another attempt. */
  | 'requeued'
  /** The worker was stopping and its drain deadline came: the run was stopped and given back, its attempt not counted. */
  | 'handedBack';
