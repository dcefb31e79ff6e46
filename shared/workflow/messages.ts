import { z } from 'zod';
import { TERMINAL_STATUSES } from '../domain/prediction.ts';

/**
 * Contracts between the workflow, the worker and Finalize, parsed at every trust boundary. None
 * carries an input or output value: executions only ever hold a prediction's id and status.
 */

/** Input of every execution: StartExecution(name = predictionId, input = this). */
export const executionInput = z.strictObject({ predictionId: z.uuid() });
export type ExecutionInput = z.infer<typeof executionInput>;

/** The message Dispatch puts on the model queue. */
export const dispatchMessage = z.strictObject({ predictionId: z.uuid(), taskToken: z.string().min(1) });
export type DispatchMessage = z.infer<typeof dispatchMessage>;

/** What the worker sends with SendTaskSuccess once it has ended the prediction itself. */
export const taskResult = z.strictObject({ status: z.enum(TERMINAL_STATUSES) });
export type TaskResult = z.infer<typeof taskResult>;

/** What Finalize answers: the prediction's status once it has ended. */
export const finalizeOutput = z.strictObject({ status: z.string() });
export type FinalizeOutput = z.infer<typeof finalizeOutput>;

/** A message on the webhook queue: deliver the prediction's current state for this event. */
export const webhookMessage = z.strictObject({ predictionId: z.uuid(), status: z.enum(TERMINAL_STATUSES) });
export type WebhookMessage = z.infer<typeof webhookMessage>;

/** Finalize's input: the execution input plus the error Dispatch was caught with. */
export const finalizeInput = z.object({
  predictionId: z.uuid(),
  error: z.object({ Error: z.string(), Cause: z.string().nullish() }).optional(),
});
export type FinalizeInput = z.infer<typeof finalizeInput>;
