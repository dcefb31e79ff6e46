import * as z from '../zod-mini.ts';

/** What prognoz derived from a predictor (`npm run models` writes it): Cog's schemas and run settings. Made at the first read of a model. */
export const derivedModel = z.lazy(() =>
  z.strictObject({
    /**
     * When the predictor's interface (what follows) was last derived different: its version's time.
     * `npm run models` keeps it while what it derives stays the same.
     */
    derivedAt: z.iso.datetime(),
    predict: z.string(),
    concurrency: z.int().check(z.minimum(1)),
    input: z.record(z.string(), z.unknown()),
    enums: z.record(z.string(), z.unknown()),
    output: z.record(z.string(), z.unknown()),
    /** The predictor folder's README.md (beside cog.yaml), as markdown; absent when it has none. */
    readme: z.optional(z.string()),
  }),
);
export type DerivedModel = z.infer<typeof derivedModel>;
