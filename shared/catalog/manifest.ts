import * as z from 'zod';
import { derivedModel } from './derived-model.ts';
import { modelId } from './model-id.ts';

const decimal = z.string().regex(/^\d+(\.\d{1,6})?$/, 'must be a decimal number of roubles, as a string (e.g. "0.05")');

/** One model in the manifest: everything about it that is not in its predictor. */
export const manifestEntry = z.strictObject({
  id: modelId,
  description: z.string().min(1),
  /** The Cog predictor folder (with cog.yaml): relative to the repository root, or absolute. */
  predictor: z.string().min(1),
  pricePerSecond: decimal,
  holdSeconds: z.number().int().positive(),
  timeouts: z.strictObject({
    queueSeconds: z.number().int().positive().optional(),
    runSeconds: z.number().int().positive(),
    heartbeatSeconds: z.number().int().positive(),
  }),
  maxAttempts: z.number().int().min(1).max(10).optional(),
  /** An input to show in the API reference's request examples (test/unit/openapi.test.ts checks it against the model's schema). */
  example: z.record(z.string(), z.unknown()).optional(),
  fleet: z
    .strictObject({
      instanceType: z.string().min(1),
      gpus: z.number().int().min(0).max(8),
      memoryMiB: z.number().int().positive(),
      minWarmTasks: z.number().int().min(0),
      maxTasks: z.number().int().min(1),
      /**
       * The most tasks an operator may raise the fleet's maximum to at run time (PATCH
       * /deployments/{company}/{model}); the stack sizes the fleet's instances for it. Default: maxTasks.
       */
      maxTasksCap: z.number().int().min(1).optional(),
      backlogPerTask: z.number().int().min(1),
    })
    .refine((fleet) => fleet.maxTasksCap === undefined || fleet.maxTasksCap >= fleet.maxTasks, {
      message: 'maxTasksCap must be at least maxTasks: it is the most an operator may raise the maximum to',
      path: ['maxTasksCap'],
    }),
  /**
   * What the local runtime needs before it offers the model (on AWS its image has everything):
   * `requiresWeights` names a folder of weights that must hold a `model.bin`, in the local
   * weights folder (PROGNOZ_WEIGHTS_DIR, by default .prognoz/weights; `npm run weights -- <name>`
   * fetches one) or in an image's /opt/whisper. Without them the model is neither started,
   * listed nor served locally (local/weights.ts).
   */
  local: z
    .strictObject({
      requiresWeights: z
        .string()
        .regex(/^[a-z0-9][a-z0-9._-]*$/, 'must be the name of a folder of weights (e.g. "large-v3-turbo")'),
    })
    .optional(),
});
export type ManifestEntry = z.infer<typeof manifestEntry>;

/** A collection's address: lower-case words joined by dashes, as Replicate's slugs are. */
export const collectionSlug = z
  .string()
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'must be lower-case words joined by dashes (e.g. "speech-to-text")')
  .max(64);

/** Models grouped by purpose (`GET /collections`), declared in the manifest. */
export const collectionEntry = z.strictObject({
  slug: collectionSlug,
  name: z.string().min(1),
  description: z.string().min(1),
  models: z.array(modelId),
});
export type CollectionEntry = z.infer<typeof collectionEntry>;

/** A model of a local run's catalog joining a collection of the manifest (`--model …,collection=slug`). */
export const collectionJoin = z.strictObject({ collection: collectionSlug, model: modelId });
export type CollectionJoin = z.infer<typeof collectionJoin>;

/** A catalog: models and what was derived from their predictors, by id. */
export const catalog = z.strictObject({
  models: z.array(manifestEntry),
  derived: z.record(z.string(), derivedModel),
  collections: z.array(collectionEntry).optional(),
  joins: z.array(collectionJoin).optional(),
});
export type Catalog = z.infer<typeof catalog>;

/** models/manifest.json. */
export const manifestFile = z.strictObject({
  $comment: z.string().optional(),
  models: z.array(manifestEntry),
  collections: z.array(collectionEntry).optional(),
});
export type ManifestFile = z.infer<typeof manifestFile>;

/** Defaults of a model brought to a local run with `--model id=folder` (the flag can set the price). */
export const LOCAL_MODEL_DEFAULTS: Omit<ManifestEntry, 'id' | 'predictor' | 'description'> = {
  pricePerSecond: '0.01',
  holdSeconds: 60,
  timeouts: { runSeconds: 3600, heartbeatSeconds: 10 },
  fleet: { instanceType: 'g5.xlarge', gpus: 1, memoryMiB: 8192, minWarmTasks: 0, maxTasks: 1, backlogPerTask: 5 },
};
