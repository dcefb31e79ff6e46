import * as z from '../zod-mini.ts';
import { predictionIdSchema, type AccountId } from '../domain/ids.ts';
import {
  SIDE_EFFECTS,
  WEBHOOK_EVENTS,
  type Prediction,
  type StoredInput,
  type StoredOutput,
} from '../domain/prediction.ts';
import type { Retention } from '../domain/retention.ts';
import { ownerIndexKey, predictionKey, sweepIndexKey } from './table-keys.ts';

/**
 * How a prediction is stored as a table item, and read back (parsed: the table is a trust boundary).
 * Input and inline output are kept as JSON text: a DynamoDB number holds no magnitude below 1e-130
 * or above 1e126 and a map nests at most 32 deep, and any JSON a caller or a model sends must fit.
 */
// Made at the first read of an item (a create that does not wait reads none), and each field's
// schema once, shared between the fields and the statuses that read alike: every schema made is a
// cold start's work (bench §4).
const predictionItem = z.lazy(() => {
  const text = z.string();
  const optionalText = z.optional(text);
  const nullishText = z.nullish(text);
  const whole = z.int();
  const nullishWhole = z.nullish(whole);
  const count = z.int().check(z.nonnegative());
  const base = {
    id: predictionIdSchema,
    model: text,
    owner: text,
    input_json: optionalText,
    // Items written before input_json existed hold the input as a map.
    input: z.optional(z.record(text, z.unknown())),
    // A large input is in the outputs bucket, and the item holds its key.
    input_key: optionalText,
    input_bytes: z.optional(count),
    webhook: z.nullable(text),
    source: z.literal('api'),
    created_at: text,
    hold_kopecks: count,
    hold_month: text,
    // Items written before attempts and sweeping existed have neither.
    attempts: z._default(count, 0),
    sweep_at: nullishWhole,
    // Items written before the Replicate-compatible fields existed have none of these.
    webhook_events: z.nullish(z.array(z.enum(WEBHOOK_EVENTS))),
    api_base: nullishText,
    stream_key: nullishText,
    // Only where a request waited for its end (Prefer: wait): absent otherwise, which keeps the item small.
    waiter: optionalText,
    deadline_at: nullishText,
    logs: z._default(text, ''),
  };
  const streamedField = z.nullish(z.array(text));
  const nullableText = z.nullable(text);
  const finishedFields = {
    started_at: nullableText,
    completed_at: nullableText,
    runtime_ms: z.nullable(whole),
    cost_kopecks: whole,
    effects: z._default(z.array(z.enum(SIDE_EFFECTS)), []),
    predict_time_ms: nullishWhole,
    /** The model's own metrics, as JSON: a map would keep neither 1.0 from 1 nor an empty map apart. */
    model_metrics_json: nullishText,
    streamed: streamedField,
    data_removed: z._default(z.boolean(), false),
  };

  return z.discriminatedUnion('status', [
    z.object({ ...base, status: z.enum(['pending', 'starting']) }),
    // A queued item from before queued_at existed counts its wait from its creation.
    z.object({ ...base, status: z.literal('queued'), queued_at: nullishText }),
    z.object({
      ...base,
      status: z.literal('processing'),
      started_at: text,
      claim: z._default(text, 'legacy'),
      progress: z.nullish(z.number().check(z.minimum(0), z.maximum(1))),
      streamed: streamedField,
    }),
    z.object({
      ...base,
      ...finishedFields,
      status: z.literal('succeeded'),
      // Both absent when the output is in the outputs bucket; `output` (a map) in items written before output_json.
      output_json: optionalText,
      output: z.optional(z.unknown()),
      output_key: nullishText,
      output_bytes: z.nullish(count),
      runtime_ms: whole,
    }),
    z.object({ ...base, ...finishedFields, status: z.literal('failed'), error: text }),
    z.object({ ...base, ...finishedFields, status: z.literal('canceled'), error: nullishText }),
  ]);
});

const outputFields = (output: StoredOutput): Record<string, unknown> =>
  output.kind === 'inline'
    ? { output_json: JSON.stringify(output.value) }
    : { output_key: output.key, output_bytes: output.bytes };

const inputFields = (input: StoredInput): Record<string, unknown> =>
  input.kind === 'inline'
    ? { input_json: JSON.stringify(input.value) }
    : { input_key: input.key, input_bytes: input.bytes };

const inputOfItem = (i: {
  input_json?: string;
  input?: Record<string, unknown>;
  input_key?: string;
  input_bytes?: number;
}): StoredInput => {
  if (i.input_key !== undefined) return { kind: 'object', key: i.input_key, bytes: i.input_bytes ?? 0 };
  const value = i.input_json === undefined ? (i.input ?? {}) : (JSON.parse(i.input_json) as Record<string, unknown>);
  return { kind: 'inline', value };
};

export const toItem = (p: Prediction): Record<string, unknown> => {
  const common = {
    ...predictionKey(p.id),
    ...ownerIndexKey(p.owner, p.createdAt),
    // In the sweeper's index only while something may still be owed.
    ...(p.sweepAtMs === null ? {} : sweepIndexKey(p.id, p.sweepAtMs)),
    type: 'prediction',
    id: p.id,
    model: p.model,
    owner: p.owner,
    ...inputFields(p.input),
    webhook: p.webhook,
    webhook_events: p.webhookEvents,
    source: p.source,
    created_at: p.createdAt,
    api_base: p.apiBase,
    stream_key: p.streamKey,
    ...(p.waiter === null ? {} : { waiter: p.waiter }),
    deadline_at: p.deadlineAt,
    logs: p.logs,
    hold_kopecks: p.hold.kopecks,
    hold_month: p.hold.month,
    attempts: p.attempts,
    status: p.status,
    started_at: p.startedAt,
  };
  switch (p.status) {
    case 'pending':
    case 'starting':
      return common;
    case 'queued':
      return { ...common, queued_at: p.queuedAt };
    case 'processing':
      return { ...common, claim: p.claim, progress: p.progress, streamed: p.streamed };
    case 'succeeded':
    case 'failed':
    case 'canceled':
      return {
        ...common,
        completed_at: p.completedAt,
        runtime_ms: p.runtimeMs,
        predict_time_ms: p.predictTimeMs,
        ...(p.modelMetrics === null ? {} : { model_metrics_json: JSON.stringify(p.modelMetrics) }),
        data_removed: p.dataRemoved,
        streamed: p.streamed,
        cost_kopecks: p.costKopecks,
        effects: p.effects,
        ...(p.status === 'succeeded' ? outputFields(p.output) : {}),
        ...(p.status === 'failed' || p.status === 'canceled' ? { error: p.error } : {}),
      };
  }
};

export const fromItem = (item: Record<string, unknown>): Prediction => {
  const i = predictionItem.parse(item);
  const common = {
    id: i.id,
    model: i.model,
    owner: i.owner as AccountId,
    input: inputOfItem(i),
    webhook: i.webhook,
    webhookEvents: i.webhook_events ?? null,
    source: i.source,
    createdAt: i.created_at,
    apiBase: i.api_base ?? null,
    streamKey: i.stream_key ?? null,
    waiter: i.waiter ?? null,
    deadlineAt: i.deadline_at ?? null,
    logs: i.logs,
    hold: { kopecks: i.hold_kopecks, month: i.hold_month },
    attempts: i.attempts,
    sweepAtMs: i.sweep_at ?? null,
  };
  switch (i.status) {
    case 'pending':
    case 'starting':
      return { ...common, status: i.status, startedAt: null };
    case 'queued':
      return { ...common, status: i.status, startedAt: null, queuedAt: i.queued_at ?? i.created_at };
    case 'processing':
      return {
        ...common,
        status: i.status,
        startedAt: i.started_at,
        claim: i.claim,
        progress: i.progress ?? null,
        streamed: i.streamed ?? null,
      };
    case 'succeeded':
    case 'failed':
    case 'canceled': {
      const done = {
        ...common,
        startedAt: i.started_at,
        completedAt: i.completed_at,
        runtimeMs: i.runtime_ms,
        predictTimeMs: i.predict_time_ms ?? null,
        modelMetrics:
          typeof i.model_metrics_json === 'string'
            ? (JSON.parse(i.model_metrics_json) as Record<string, unknown>)
            : null,
        dataRemoved: i.data_removed,
        // The sweeper's index holds an ended prediction for what it owes, then for its data's removal (the store's): only the first is the domain's.
        sweepAtMs: i.effects.length > 0 ? (i.sweep_at ?? null) : null,
        streamed: i.streamed ?? null,
        costKopecks: i.cost_kopecks,
        effects: i.effects,
      };
      if (i.status === 'succeeded') {
        const output: StoredOutput =
          typeof i.output_key === 'string'
            ? { kind: 'object', key: i.output_key, bytes: i.output_bytes ?? 0 }
            : {
                kind: 'inline',
                value: i.output_json === undefined ? i.output : (JSON.parse(i.output_json) as unknown),
              };
        return { ...done, status: 'succeeded', output, runtimeMs: i.runtime_ms };
      }
      if (i.status === 'failed') return { ...done, status: 'failed', error: i.error };
      return { ...done, status: 'canceled', error: i.error ?? null };
    }
  }
};

/** An ended prediction's retention as its item holds it: `expires_at` is the table's TTL attribute. */
export const retentionItemFields = (retention: Retention) => ({
  data_expires_at_ms: retention.dataExpiresAtMs,
  expires_at: retention.recordExpiresAtSeconds,
});

/** The retention an item holds; null where it is not set (an active prediction, or one from before it was kept). */
export const retentionOfItem = (
  item: Record<string, unknown>,
): { readonly dataExpiresAtMs: number | null; readonly recordExpiresAtSeconds: number | null } => ({
  dataExpiresAtMs: typeof item.data_expires_at_ms === 'number' ? item.data_expires_at_ms : null,
  recordExpiresAtSeconds: typeof item.expires_at === 'number' ? item.expires_at : null,
});
