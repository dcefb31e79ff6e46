import type { z } from 'zod';

/** Everything the service knows about one model: its contract, its price and how it runs. */
export interface ModelDefinition {
  /** `{company}/{model}` as addressed in the API. */
  readonly id: string;
  readonly description: string;
  /** Strict zod schema with defaults: unknown fields are rejected, defaults are echoed. */
  readonly input: z.ZodObject;
  readonly output: z.ZodType;
  /** Roubles per second of model time, as an exact decimal string. */
  readonly pricePerSecond: string;
  /**
   * Model seconds reserved from the account's funds while a prediction is in flight: a create is
   * refused (402) unless the funds, and the month's limit, cover this much (DESIGN §6, billing).
   */
  readonly holdSeconds: number;
  readonly timeouts: {
    /** Longest a run may take once dispatched, queue wait included (Step Functions TimeoutSeconds). */
    readonly runSeconds: number;
    /** The worker must heartbeat at least this often, or the run counts as lost. */
    readonly heartbeatSeconds: number;
  };
  /** How the model runs on AWS: one model server (plus its worker) per ECS task. */
  readonly fleet: {
    /** EC2 instance type of the model's capacity. */
    readonly instanceType: string;
    /** GPUs the model server needs; 0 runs it on CPU capacity with the standard ECS AMI. */
    readonly gpus: number;
    /** Memory reserved for the model server, MiB. */
    readonly memoryMiB: number;
    /** Tasks kept running with an empty queue; 0 lets the fleet scale to zero. */
    readonly minWarmTasks: number;
    readonly maxTasks: number;
    /** Predictions waiting per running task before another task is started. */
    readonly backlogPerTask: number;
    /** The model server's Dockerfile, relative to the repository root (the build context). */
    readonly dockerfile: string;
  };
}

/** A name usable for AWS resources and local queues: `prognoz/echo` → `prognoz-echo`. */
export const resourceNameOf = (model: Pick<ModelDefinition, 'id'>): string => model.id.replace(/[^A-Za-z0-9-]/g, '-');
