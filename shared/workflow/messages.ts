import { z } from 'zod';

/**
 * Contracts between the workflow, the worker and Finalize. Parsed at every trust boundary: the
 * SQS body in the worker, the task result in Finalize.
 */

/** Input of every execution: StartExecution(name = predictionId, input = this). */
export const executionInput = z.strictObject({ predictionId: z.uuid() });
export type ExecutionInput = z.infer<typeof executionInput>;

/** The message Dispatch puts on the model queue. */
export const dispatchMessage = z.strictObject({ predictionId: z.uuid(), taskToken: z.string().min(1) });
export type DispatchMessage = z.infer<typeof dispatchMessage>;

/** What the worker sends with SendTaskSuccess when the model produced output. */
export const runSucceeded = z.strictObject({ output: z.unknown(), runtimeMs: z.number().int().nonnegative() });
export type RunSucceeded = z.infer<typeof runSucceeded>;

/** Error names the worker uses with SendTaskFailure; the cause is a `RunFailureCause` JSON. */
export const MODEL_FAILED = 'Prognoz.ModelFailed';
export const WORKER_FAILED = 'Prognoz.WorkerFailed';

export const runFailureCause = z.strictObject({
  message: z.string(),
  runtimeMs: z.number().int().nonnegative().nullable(),
});
export type RunFailureCause = z.infer<typeof runFailureCause>;

/** What Finalize answers: whether it ended the prediction and a webhook must go out. */
export const finalizeOutput = z.strictObject({ status: z.string(), notify: z.boolean() });
export type FinalizeOutput = z.infer<typeof finalizeOutput>;

/** A message on the webhook queue: deliver the prediction's current state for this event. */
export const webhookMessage = z.strictObject({ predictionId: z.uuid(), status: z.enum(['succeeded', 'failed', 'canceled']) });
export type WebhookMessage = z.infer<typeof webhookMessage>;

/** Finalize's input: the execution input plus either the run's result or the caught error. */
export const finalizeInput = z.object({
  predictionId: z.uuid(),
  result: runSucceeded.optional(),
  error: z.object({ Error: z.string(), Cause: z.string().nullish() }).optional(),
});
export type FinalizeInput = z.infer<typeof finalizeInput>;
