import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { FleetBounds } from '../shared/domain/deployment-bounds.ts';
import type { FleetState } from '../shared/ports/fleet-scaling.ts';
import type { InstanceControl } from './fleet-instances.ts';
import type { LocalFleet } from './fleets.ts';

export interface ScalerOptions {
  readonly cluster: string;
  readonly bounds: FleetBounds;
  /** Jobs per instance before another starts (the manifest's backlogPerTask, as the fleet's scaling steps use it). */
  readonly backlogPerTask: number;
  readonly instances: InstanceControl;
  /** Jobs waiting and running: what the fleet's alarm on AWS watches. */
  readonly backlog: () => Promise<number>;
  /** How long the backlog must stay below the instances running before some stop (AWS: the alarm's minute and the cooldown). */
  readonly scaleInAfterMs: number;
  readonly everyMs: number;
  /** Told of new bounds, to keep them over a restart (as a scalable target keeps them over a deploy). */
  readonly onResize: (bounds: FleetBounds) => void;
  readonly log: (line: string) => void;
  readonly now?: () => number;
}

/** SQS's count of a queue's jobs, waiting and taken. */
export const queueBacklog = async (sqs: SQSClient, queueUrl: string): Promise<number> => {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0)
  );
};

/**
 * One model's fleet on this machine, sized as Application Auto Scaling sizes it on AWS: within its
 * bounds, ceil(backlog / backlogPerTask) instances; more at once, fewer only after the backlog has
 * stayed low for `scaleInAfterMs`. With min 0 an idle model has no model server at all, and its
 * next job waits for one to start (its cold start); with min ≥ 1 that many stay warm. At most max
 * run, so max caps the runs at once (max × the predictor's concurrency).
 */
export class FleetScaler implements LocalFleet {
  readonly cluster: string;
  private bounds: FleetBounds;
  private started = 0;
  private desired = 0;
  private lowSinceMs: number | null = null;
  private turn: Promise<void> = Promise.resolve();
  private sizing = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: ScalerOptions) {
    this.cluster = options.cluster;
    this.bounds = options.bounds;
  }

  state(): FleetState {
    return { ...this.bounds, desiredInstances: this.desired, runningInstances: this.options.instances.running() };
  }

  resize(bounds: FleetBounds): void {
    this.bounds = bounds;
    this.options.onResize(bounds);
    this.options.log(`[fleet ${this.cluster}] bounds now min ${bounds.minInstances}, max ${bounds.maxInstances}`);
    // New bounds apply at once, as a scalable target moves the desired count into them.
    void this.reconcile();
  }

  /** Starts the fleet's minimum and watches its backlog. */
  async start(): Promise<void> {
    await this.reconcile();
    // A tick while a sizing runs (an instance's start or drain takes seconds) is skipped, not queued.
    this.timer = setInterval(() => {
      if (this.sizing === 0) void this.reconcile();
    }, this.options.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** One sizing at a time: a start or stop of an instance takes seconds. */
  private reconcile(): Promise<void> {
    this.sizing += 1;
    this.turn = this.turn
      .then(() => this.size())
      .catch((error: unknown) =>
        this.options.log(
          `[fleet ${this.cluster}] could not size: ${error instanceof Error ? error.message : String(error)}`,
        ),
      )
      .finally(() => {
        this.sizing -= 1;
      });
    return this.turn;
  }

  private async wanted(): Promise<number> {
    const { minInstances, maxInstances } = this.bounds;
    // With no room to move, the backlog cannot change the count: no need to read it.
    if (minInstances >= maxInstances) return maxInstances;
    const byBacklog = Math.ceil((await this.options.backlog()) / this.options.backlogPerTask);
    return Math.min(maxInstances, Math.max(minInstances, byBacklog));
  }

  private async size(): Promise<void> {
    const target = await this.wanted();
    const now = (this.options.now ?? Date.now)();
    if (target >= this.started) {
      this.lowSinceMs = null;
    } else if (this.started <= this.bounds.maxInstances) {
      // Scale-in waits for a backlog that stays low; a max below what runs does not wait.
      this.lowSinceMs ??= now;
      if (now - this.lowSinceMs < this.options.scaleInAfterMs) return;
    }
    this.desired = target;
    while (this.started < target) {
      this.started += 1;
      await this.options.instances.start(this.started);
    }
    while (this.started > target) {
      await this.options.instances.stop(this.started);
      this.started -= 1;
    }
    this.lowSinceMs = null;
  }
}
