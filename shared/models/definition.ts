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
  readonly timeouts: {
    /** Longest a run may take once dispatched, queue wait included (Step Functions TimeoutSeconds). */
    readonly runSeconds: number;
    /** The worker must heartbeat at least this often, or the run counts as lost. */
    readonly heartbeatSeconds: number;
  };
}

/** A name usable for AWS resources and local queues: `prognoz/echo` → `prognoz-echo`. */
export const resourceNameOf = (model: Pick<ModelDefinition, 'id'>): string => model.id.replace(/[^A-Za-z0-9-]/g, '-');
