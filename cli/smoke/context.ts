import type { SmokeClient } from './client.ts';
import type { SmokeOptions } from './options.ts';
import type { SmokeStep } from './step.ts';

/** What every step of the smoke test works with. */
export interface SmokeContext {
  readonly client: SmokeClient;
  readonly options: SmokeOptions;
}

export type SmokeCheck = SmokeStep<SmokeContext>;

/** When a step starting now must have its prediction's answer (epoch ms). */
export const stepDeadline = (context: SmokeContext): number => Date.now() + context.options.timeoutSeconds * 1000;
