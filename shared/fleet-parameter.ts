import * as z from 'zod';
import type { Fleet } from './ports/fleet-control.ts';

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
