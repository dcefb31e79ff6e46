import { z } from 'zod';
import type { AccountId, PredictionId } from '../domain/ids.ts';
import { SIDE_EFFECTS, type Prediction, type StoredOutput } from '../domain/prediction.ts';
import { ownerIndexKey, predictionKey, sweepIndexKey } from './table-keys.ts';

/** How a prediction is stored as a table item, and read back (parsed: the table is a trust boundary). */
const base = {
  id: z.uuid(),
  model: z.string(),
  owner: z.string(),
  input: z.record(z.string(), z.unknown()),
  webhook: z.string().nullable(),
  source: z.literal('api'),
  created_at: z.string(),
  hold_kopecks: z.number().int().nonnegative(),
  hold_month: z.string(),
  // Items written before attempts and sweeping existed have neither.
  attempts: z.number().int().nonnegative().default(0),
  sweep_at: z.number().int().nullish(),
};
const finishedFields = {
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  runtime_ms: z.number().int().nullable(),
  cost_kopecks: z.number().int(),
  effects: z.array(z.enum(SIDE_EFFECTS)).default([]),
};

const predictionItem = z.discriminatedUnion('status', [
  z.object({ ...base, status: z.enum(['pending', 'starting']) }),
  // A queued item from before queued_at existed counts its wait from its creation.
  z.object({ ...base, status: z.literal('queued'), queued_at: z.string().nullish() }),
  z.object({
    ...base,
    status: z.literal('processing'),
    started_at: z.string(),
    claim: z.string().default('legacy'),
    progress: z.number().min(0).max(1).nullish(),
  }),
  z.object({
    ...base,
    ...finishedFields,
    status: z.literal('succeeded'),
    // Absent when the output is in the outputs bucket.
    output: z.unknown().optional(),
    output_key: z.string().nullish(),
    output_bytes: z.number().int().nonnegative().nullish(),
    runtime_ms: z.number().int(),
  }),
  z.object({ ...base, ...finishedFields, status: z.literal('failed'), error: z.string() }),
  z.object({ ...base, ...finishedFields, status: z.literal('canceled') }),
]);

const outputFields = (output: StoredOutput): Record<string, unknown> =>
  output.kind === 'inline' ? { output: output.value } : { output_key: output.key, output_bytes: output.bytes };

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
    input: p.input,
    webhook: p.webhook,
    source: p.source,
    created_at: p.createdAt,
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
      return { ...common, claim: p.claim, progress: p.progress };
    case 'succeeded':
    case 'failed':
    case 'canceled':
      return {
        ...common,
        completed_at: p.completedAt,
        runtime_ms: p.runtimeMs,
        cost_kopecks: p.costKopecks,
        effects: p.effects,
        ...(p.status === 'succeeded' ? outputFields(p.output) : {}),
        ...(p.status === 'failed' ? { error: p.error } : {}),
      };
  }
};

export const fromItem = (item: Record<string, unknown>): Prediction => {
  const i = predictionItem.parse(item);
  const common = {
    id: i.id as PredictionId,
    model: i.model,
    owner: i.owner as AccountId,
    input: i.input,
    webhook: i.webhook,
    source: i.source,
    createdAt: i.created_at,
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
      return { ...common, status: i.status, startedAt: i.started_at, claim: i.claim, progress: i.progress ?? null };
    case 'succeeded':
    case 'failed':
    case 'canceled': {
      const done = {
        ...common,
        startedAt: i.started_at,
        completedAt: i.completed_at,
        runtimeMs: i.runtime_ms,
        costKopecks: i.cost_kopecks,
        effects: i.effects,
      };
      if (i.status === 'succeeded') {
        const output: StoredOutput =
          typeof i.output_key === 'string' ? { kind: 'object', key: i.output_key, bytes: i.output_bytes ?? 0 } : { kind: 'inline', value: i.output };
        return { ...done, status: 'succeeded', output, runtimeMs: i.runtime_ms };
      }
      if (i.status === 'failed') return { ...done, status: 'failed', error: i.error };
      return { ...done, status: 'canceled' };
    }
  }
};
