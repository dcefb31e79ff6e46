import * as z from 'zod';
import { ownerAndNameOf } from '../models/definition.ts';
import type { ModelDefinition } from '../models/registry.ts';
import type { FleetState } from '../ports/fleet-scaling.ts';

/**
 * Each model's fleet as a Replicate deployment of the same name as the model (interface:
 * Compatibility): its release is the model's one version on the fleet's hardware, within the
 * bounds its scaler keeps it.
 */
export const deploymentSchema = z
  .object({
    owner: z.string(),
    name: z.string(),
    current_release: z.object({
      number: z.int().positive().describe('Counts the changes of its configuration, from 1.'),
      model: z.string().describe('`{company}/{model}`.'),
      version: z.string().describe("The model's one version: its id, `{company}/{model}`."),
      created_at: z.iso.datetime().describe('When this release began: the model version it runs.'),
      configuration: z.object({
        hardware: z.string().describe('The instance type its fleet runs on (`GET /hardware`).'),
        min_instances: z.int().nonnegative().describe('Instances kept running, even with nothing to do.'),
        max_instances: z.int().nonnegative().describe('The most instances it scales to.'),
      }),
    }),
    instances: z
      .object({
        running: z.int().nonnegative().describe('Instances (a model server and its worker) running now.'),
        desired: z.int().nonnegative().describe('Instances its scaler wants now.'),
      })
      .describe("How the fleet stands now (beside Replicate's fields; its clients ignore it)."),
  })
  .meta({ id: 'Deployment' });

export const deploymentListSchema = z
  .object({
    results: z.array(deploymentSchema),
    next: z.null(),
    previous: z.null(),
  })
  .meta({ id: 'DeploymentList' });

export type DeploymentView = z.infer<typeof deploymentSchema>;

export const deploymentView = (model: ModelDefinition, fleet: FleetState): DeploymentView => {
  return {
    ...ownerAndNameOf(model.id),
    current_release: {
      number: 1,
      model: model.id,
      version: model.id,
      created_at: model.versionCreatedAt,
      configuration: {
        hardware: model.fleet.instanceType,
        min_instances: fleet.minInstances,
        max_instances: fleet.maxInstances,
      },
    },
    instances: { running: fleet.runningInstances, desired: fleet.desiredInstances },
  };
};
