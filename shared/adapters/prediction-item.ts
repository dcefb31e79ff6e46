import { z } from 'zod';
import type { AccountId, PredictionId } from '../domain/ids.ts';
import type { Prediction } from '../domain/prediction.ts';
import { ownerIndexKey, predictionKey } from './table-keys.ts';

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
};
const finishedFields = {
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  runtime_ms: z.number().int().nullable(),
  cost_kopecks: z.number().int(),
};

const predictionItem = z.discriminatedUnion('status', [
  z.object({ ...base, status: z.enum(['pending', 'starting', 'queued']) }),
  z.object({ ...base, status: z.literal('processing'), started_at: z.string(), attempts: z.number().int(), progress: z.number().min(0).max(1).nullish() }),
  z.object({ ...base, ...finishedFields, status: z.literal('succeeded'), output: z.unknown(), runtime_ms: z.number().int() }),
  z.object({ ...base, ...finishedFields, status: z.literal('failed'), error: z.string() }),
  z.object({ ...base, ...finishedFields, status: z.literal('canceled') }),
]);

export const toItem = (p: Prediction): Record<string, unknown> => {
  const common = {
    ...predictionKey(p.id),
    ...ownerIndexKey(p.owner, p.createdAt),
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
    status: p.status,
    started_at: p.startedAt,
  };
  switch (p.status) {
    case 'pending':
    case 'starting':
    case 'queued':
      return common;
    case 'processing':
      return { ...common, attempts: p.attempts, progress: p.progress };
    case 'succeeded':
    case 'failed':
    case 'canceled':
      return {
        ...common,
        completed_at: p.completedAt,
        runtime_ms: p.runtimeMs,
        cost_kopecks: p.costKopecks,
        ...(p.status === 'succeeded' ? { output: p.output } : {}),
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
  };
  switch (i.status) {
    case 'pending':
    case 'starting':
    case 'queued':
      return { ...common, status: i.status, startedAt: null };
    case 'processing':
      return { ...common, status: i.status, startedAt: i.started_at, attempts: i.attempts, progress: i.progress ?? null };
    case 'succeeded':
    case 'failed':
    case 'canceled': {
      const done = {
        ...common,
        startedAt: i.started_at,
        completedAt: i.completed_at,
        runtimeMs: i.runtime_ms,
        costKopecks: i.cost_kopecks,
      };
      if (i.status === 'succeeded') return { ...done, status: 'succeeded', output: i.output, runtimeMs: i.runtime_ms };
      if (i.status === 'failed') return { ...done, status: 'failed', error: i.error };
      return { ...done, status: 'canceled' };
    }
  }
};

