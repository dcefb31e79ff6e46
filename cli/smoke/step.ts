/** One named check of the smoke test, and how its outcome is told. */

/** A figure the step learned on the way: a latency, or what the service says of itself. */
export interface Figure {
  readonly name: string;
  readonly value: string;
}

export type StepOutcome =
  | { readonly kind: 'pass'; readonly summary: string; readonly figures: readonly Figure[] }
  | { readonly kind: 'skip'; readonly reason: string };

export interface StepReport {
  readonly name: string;
  readonly outcome: StepOutcome | { readonly kind: 'fail'; readonly reason: string };
  readonly ms: number;
}

/** What makes a step fail: the reason is the whole message, told as is. */
export class StepFailure extends Error {
  override readonly name = 'StepFailure';
}

export interface SmokeStep<Context> {
  readonly name: string;
  run(context: Context): Promise<StepOutcome>;
}

const reasonOf = (error: unknown): string => {
  if (error instanceof StepFailure) return error.message;
  if (!(error instanceof Error)) return String(error);
  // fetch's "fetch failed" says nothing; its cause says what (ECONNREFUSED, a TLS error, …).
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
};

/** Runs a step to its outcome: whatever it throws is its failure, never the smoke test's end. */
export const runStep = async <Context>(step: SmokeStep<Context>, context: Context): Promise<StepReport> => {
  const started = performance.now();
  try {
    const outcome = await step.run(context);
    return { name: step.name, outcome, ms: performance.now() - started };
  } catch (error) {
    return { name: step.name, outcome: { kind: 'fail', reason: reasonOf(error) }, ms: performance.now() - started };
  }
};

/** A duration as people read it: milliseconds under a second, else seconds. */
export const duration = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
