import * as z from '../zod-mini.ts';
import { predictionIdSchema } from '../domain/ids.ts';
import { TERMINAL_STATUSES } from '../domain/prediction.ts';

/** The events of a run a webhook may ask for beside its end (`webhook_events_filter`). */
export const RUN_EVENTS = ['start', 'output', 'logs'] as const;
export type RunEvent = (typeof RUN_EVENTS)[number];

/**
 * Contracts between the workflow, the worker and Finalize, parsed at every trust boundary. None
 * carries an input or output value: executions only ever hold a prediction's id and status.
 */

/** Input of every execution: StartExecution(name = predictionId, input = this). */
export const executionInput = z.strictObject({ predictionId: predictionIdSchema });
export type ExecutionInput = z.infer<typeof executionInput>;

/** The message Dispatch puts on the model queue. */
export const dispatchMessage = z.strictObject({
  predictionId: predictionIdSchema,
  taskToken: z.string().check(z.minLength(1)),
});
export type DispatchMessage = z.infer<typeof dispatchMessage>;

/** What the worker sends with SendTaskSuccess once it has ended the prediction itself. */
export const taskResult = z.strictObject({ status: z.enum(TERMINAL_STATUSES) });
export type TaskResult = z.infer<typeof taskResult>;

/** What Finalize answers: the prediction's status once it has ended. */
export const finalizeOutput = z.strictObject({ status: z.string() });
export type FinalizeOutput = z.infer<typeof finalizeOutput>;

/**
 * A message on the webhook queue: deliver the prediction's current state for this event — its
 * end (`status`), or an event of its run, at the time it happened (which makes its webhook id).
 */
export const webhookMessage = z.union([
  z.strictObject({ predictionId: predictionIdSchema, status: z.enum(TERMINAL_STATUSES) }),
  z.strictObject({ predictionId: predictionIdSchema, event: z.enum(RUN_EVENTS), atMs: z.int().check(z.nonnegative()) }),
]);
export type WebhookMessage = z.infer<typeof webhookMessage>;

/** The event a webhook message delivers, as the delivery log and the webhook id name it. */
export const webhookEventOf = (message: WebhookMessage): string =>
  'status' in message ? message.status : message.event;

/** Finalize's input: the execution input plus the error Dispatch was caught with. */
export const finalizeInput = z.object({
  predictionId: predictionIdSchema,
  error: z.optional(z.object({ Error: z.string(), Cause: z.nullish(z.string()) })),
});
export type FinalizeInput = z.infer<typeof finalizeInput>;
