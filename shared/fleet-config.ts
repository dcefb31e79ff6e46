import { z } from 'zod';
import type { Fleet } from './ports/fleet-control.ts';

/**
 * Where the stack tells the sweeper its fleets: the Parameter Store path under which each fleet
 * has a parameter (fleetParameter's JSON). A path, not the fleets themselves: a fleet's queue
 * URL, cluster and service take some 350 characters, and Lambda allows a function 4 KB of
 * environment in all. Set on AWS only (infra/constructs/sweeper.ts): the local runtime leaves it
 * out, for its workers always run.
 */
export const FLEETS_ENV = 'PROGNOZ_FLEETS';

/** The path of a stack's fleet parameters. */
export const fleetsPathOf = (stackName: string): string => `/${stackName}/fleets`;

/** A fleet's parameter: its model, the model's job queue, and its fleet's cluster and service. */
export const fleetParameter = z.strictObject({
  modelId: z.string().min(1),
  queueUrl: z.string().min(1),
  cluster: z.string().min(1),
  service: z.string().min(1),
});

/** A fleet parameter's value, read. */
export const parseFleetParameter = (name: string, value: string | undefined): Fleet => {
  const parsed = z
    .string()
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'not JSON' });
        return z.NEVER;
      }
    })
    .pipe(fleetParameter)
    .safeParse(value);
  if (!parsed.success) throw new Error(`the parameter ${name} is not a fleet: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
};

/** The path of the fleets the sweeper wakes; null where FLEETS_ENV is not set. */
export const fleetsPathFromEnv = (env: NodeJS.ProcessEnv = process.env): string | null => {
  const value = env[FLEETS_ENV];
  if (value === undefined) return null;
  return z
    .string()
    .regex(/^(\/[\w.-]+)+$/, `${FLEETS_ENV} must be a Parameter Store path, such as /Prognoz/fleets`)
    .parse(value);
};
