import { endingOwed, type OwedEnding } from '../../domain/phases.ts';
import type { PhaseLimits } from '../../domain/prediction.ts';
import type { PredictionId } from '../../domain/ids.ts';
import type { RunEvent } from '../../workflow/messages.ts';
import { secretScrubber } from '../../domain/secrets.ts';
import { phaseLimitsOf } from '../../catalog/definition.ts';
import type { Processing } from '../claim-job.ts';
import type { RunDeps } from './run-deps.ts';
import { OutputFilesTooLarge, RunFiles } from './output-files.ts';
import { freshWatch, stepRun } from './run-events.ts';

/**
 * A prediction while the model server runs it: what the worker has seen of the run, and why it
 * stopped the run, if it did. Each look (`look`, every `checkMs`) records the run's progress, logs
 * and streamed output while the prediction is still this worker's, sends the run webhooks the
 * prediction asked for, and stops the run when its deadline has passed, when someone else ended
 * it or took it over, or when its files outgrew a prediction's. At the drain deadline the run is
 * stopped to be handed back (`handBack`).
 */
export class RunningPrediction {
  /** Stops the fetching of file inputs, as a cancel to the model server stops its run. */
  readonly stopRun = new AbortController();
  /** Someone else ended the prediction or took the run over. */
  stopped = false;
  /** The ending the prediction came to be owed while it ran (its deadline): the run was stopped for it. */
  owedAtStop: OwedEnding | null = null;
  /** The drain deadline came: the run is being stopped to go back to the queue. */
  handingBack = false;
  /** The run's files outgrew a prediction's. */
  filesOverflow: OutputFilesTooLarge | null = null;
  /** The prediction as it is stored, while this worker knows it: as claimed, until a look records the run. */
  stored: Processing | undefined;
  /** The files the run returns, kept in the outputs bucket as they come (an iterator's pieces) and at its end. */
  readonly files: RunFiles;
  private watch = freshWatch();

  readonly limits: PhaseLimits;
  /** Hides the secrets of the prediction's input in what the model writes. */
  readonly scrub: (text: string) => string;

  constructor(
    private readonly deps: RunDeps,
    readonly prediction: Processing,
    /** The input the caller gave (read from the outputs bucket when it was stored there). */
    readonly given: Readonly<Record<string, unknown>>,
  ) {
    this.stored = prediction;
    this.limits = phaseLimitsOf(deps.model);
    this.scrub = secretScrubber(deps.model.secrets, given);
    this.files = new RunFiles(deps.outputs, prediction.id, prediction.claim);
  }

  get id(): PredictionId {
    return this.prediction.id;
  }

  /** Whether a look still has anything to do. */
  get watching(): boolean {
    return this.owedAtStop === null && !this.stopped && !this.handingBack;
  }

  /** Queues the run webhooks `events` for the prediction. */
  notify(events: readonly RunEvent[]): Promise<unknown> {
    const { notifier } = this.deps.effects;
    return Promise.all(
      events.map((event) => notifier.notify({ predictionId: this.id, event, atMs: this.deps.clock.now() })),
    );
  }

  /** What was held back by the webhook interval: sent once the run is over. */
  get unsent(): readonly RunEvent[] {
    return [...this.watch.unsent];
  }

  /** One look at the run: see the class. */
  async look(): Promise<void> {
    if (!this.watching) return;
    const { deps, prediction } = this;
    const owed = endingOwed(prediction, this.limits, deps.clock.now());
    if (owed !== null) {
      this.owedAtStop = owed;
      deps.log('the prediction is owed an ending; stopping the model', { predictionId: this.id, error: owed.error });
      await this.stopModel();
      return;
    }
    const state = await this.runStateWithFiles();
    if (state === 'overflow') return;
    const step =
      state === null
        ? null
        : stepRun(prediction, this.watch, { ...state, logs: this.scrub(state.logs) }, deps.clock.now());
    const changed = step !== null && Object.keys(step.update).length > 0;
    // The record is written only while the prediction is still ours: when it is written, that was
    // the check, and the table is asked once a look rather than twice.
    if (changed && (await deps.store.recordRun(this.id, prediction.claim, step.update))) this.stored = undefined;
    else {
      const current = await deps.store.statusOf(this.id);
      if (current?.status !== 'processing' || current.claim !== prediction.claim) {
        this.stopped = true;
        deps.log('the prediction was ended or taken over while it ran; stopping the model', {
          predictionId: this.id,
          status: current?.status,
        });
        await this.stopModel();
        return;
      }
      if (changed) return; // its condition failed, yet it reads as ours now: the next look records it
    }
    if (step === null) return;
    this.watch = step.watch;
    await this.notify(step.events);
  }

  /** The drain deadline came: the run is stopped, to be handed back once it has stopped. False when it was stopped already. */
  handBack(): boolean {
    if (!this.watching) return false;
    this.handingBack = true;
    this.deps.log('the drain deadline came; stopping the run to hand it back to the queue', { predictionId: this.id });
    void this.stopModel();
    return true;
  }

  /** Stops the fetching of inputs and the model's run. */
  private async stopModel(): Promise<void> {
    this.stopRun.abort();
    await this.deps.modelServer.cancel(this.id).catch(() => undefined);
  }

  /** How the run stands, its streamed files kept; a run whose files outgrew the limit is stopped. */
  private async runStateWithFiles() {
    const state = await this.deps.modelServer.runState(this.id).catch(() => null);
    if (state === null) return null;
    try {
      return { ...state, streamed: await Promise.all(state.streamed.map((piece) => this.files.keepPiece(piece))) };
    } catch (error) {
      if (!(error instanceof OutputFilesTooLarge)) throw error;
      this.filesOverflow = error;
      this.deps.log('the run returned more files than a prediction may; stopping the model', { predictionId: this.id });
      await this.stopModel();
      return 'overflow' as const;
    }
  }
}
