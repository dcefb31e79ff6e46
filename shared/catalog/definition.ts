import type * as z from '../zod-mini.ts';
import type { PhaseLimits } from '../domain/prediction.ts';
import type { PredictionPolicy } from '../domain/transition.ts';
import { roublesToMicro } from '../domain/pricing.ts';

/** A file input of a model (`cog.Path`): the worker fetches it and hands the model a local file. */
export interface FileInput {
  readonly name: string;
  /** A list of files (`list[Path]`). */
  readonly list: boolean;
}

/** What a model's predictor promises (cog-schema.ts derives it from the predictor's schemas). */
export interface ModelContract {
  /** Strict zod schema with defaults: unknown fields are rejected, defaults are echoed. */
  readonly input: z.ZodMiniObject;
  readonly output: z.ZodMiniType;
  /** Inputs the worker fetches through the guarded fetcher before the model runs. */
  readonly files: readonly FileInput[];
  /** Inputs (`cog.Secret`) that are never shown: redacted in every view, webhook and log. */
  readonly secrets: readonly string[];
  /**
   * Inputs that may be null and have no default (`Optional[str]` with none): omitted, the model is
   * given None, as coglet gives it (it fills in null for them).
   */
  readonly nullWhenOmitted: readonly string[];
  /** Its output is an iterator, whose items are streamed as the model makes them (`urls.stream`, `output` webhooks). */
  readonly streams: boolean;
}

/**
 * Everything the service knows about one model: its contract (derived from its Cog predictor),
 * its price and how it runs (from the manifest of models).
 */
export interface ModelDefinition extends ModelContract {
  /** `{company}/{model}` as addressed in the API. */
  readonly id: string;
  readonly description: string;
  /** When its predictor's interface was last derived different: its one version's time. */
  readonly versionCreatedAt: string;
  /** An input shown in the API reference's request examples. */
  readonly example?: Readonly<Record<string, unknown>>;
  /** Its predictor folder's README.md, as markdown; null when it has none. */
  readonly readme: string | null;
  /** Roubles per second of model time, as an exact decimal string. */
  readonly pricePerSecond: string;
  /**
   * Model seconds reserved from the account's funds while a prediction is in flight: a create is
   * refused (402) unless the funds, and the month's limit, cover this much (interface: Billing).
   */
  readonly holdSeconds: number;
  readonly timeouts: {
    /**
     * Longest a prediction may wait in the model's queue, each time it waits there, before it
     * ends `failed` for want of capacity. Default: DEFAULT_QUEUE_SECONDS (an hour).
     */
    readonly queueSeconds?: number;
    /** Longest a run may take, counted from the moment a worker claims the prediction. */
    readonly runSeconds: number;
    /**
     * How often the worker renews its claim while it runs; a claim not renewed for two of these
     * intervals is a lost worker, and the prediction is run again.
     */
    readonly heartbeatSeconds: number;
  };
  /** Runs a prediction may have when its workers are lost; then it ends `failed`. Default: 2. */
  readonly maxAttempts?: number;
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
    /** The most tasks the scaler starts, as deployed; an operator may change it at run time. */
    readonly maxTasks: number;
    /**
     * The most an operator may raise the maximum to at run time (the manifest's, or maxTasks):
     * the fleet's instances and scaling steps reach this far, so raising it needs no deploy.
     */
    readonly maxTasksCap: number;
    /** Predictions waiting per running task before another task is started. */
    readonly backlogPerTask: number;
  };
  /** What the local runtime needs before it offers the model (the manifest's `local`). */
  readonly local?: {
    /** A folder of weights, by name, that must be present (local/weights.ts). */
    readonly requiresWeights: string;
  };
  /** The Cog predictor the model runs. */
  readonly predictor: {
    /** Its folder (with cog.yaml): relative to the repository root, or absolute. */
    readonly folder: string;
    /** Runs one model server takes at once (cog.yaml `concurrency.max`). */
    readonly concurrency: number;
  };
}

/** A model id's two parts, `{company}/{model}`: as Replicate names them, its owner and its name. */
export const ownerAndNameOf = (id: string): { readonly owner: string; readonly name: string } => {
  const [owner = '', name = ''] = id.split('/');
  return { owner, name };
};

export const DEFAULT_QUEUE_SECONDS = 3600;
export const DEFAULT_MAX_ATTEMPTS = 2;

/** The phase limits of a model's predictions, defaults filled in. */
export const phaseLimitsOf = (model: Pick<ModelDefinition, 'timeouts' | 'maxAttempts'>): PhaseLimits => ({
  queueSeconds: model.timeouts.queueSeconds ?? DEFAULT_QUEUE_SECONDS,
  runSeconds: model.timeouts.runSeconds,
  leaseSeconds: 2 * model.timeouts.heartbeatSeconds,
  maxAttempts: model.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
});

export const policyOf = (model: ModelDefinition): PredictionPolicy => ({
  pricePerSecondMicro: roublesToMicro(model.pricePerSecond),
  limits: phaseLimitsOf(model),
});
