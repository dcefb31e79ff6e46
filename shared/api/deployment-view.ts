import * as z from 'zod';
import { formatTimestamp } from '../domain/clock.ts';
import { ownerAndNameOf } from '../catalog/definition.ts';
import type { Deployment } from '../use-cases/read-deployments.ts';

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
      number: z
        .int()
        .positive()
        .describe("Counts its configuration's releases: 1 is the stack's deploy, each change of its bounds the next."),
      model: z.string().describe('`{company}/{model}`.'),
      version: z.string().describe("The model's one version: its id, `{company}/{model}`."),
      created_at: z.iso
        .datetime()
        .describe("When this release began: the last change of its bounds, else the model version's creation."),
      created_by: z
        .object({
          type: z.literal('user'),
          username: z.string(),
          name: z.string(),
          github_url: z.null(),
        })
        .nullable()
        .describe(
          'The operator who made the change (an email, or `cli:<user>`); null for the release the deploy made.',
        ),
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

/** A change's maker as Replicate's clients read an account. */
const operatorAccount = (by: string) => ({ type: 'user' as const, username: by, name: by, github_url: null });

export const deploymentView = ({ model, fleet, lastChange }: Deployment): DeploymentView => {
  return {
    ...ownerAndNameOf(model.id),
    current_release: {
      number: lastChange?.release ?? 1,
      model: model.id,
      version: model.id,
      created_at: lastChange === null ? model.versionCreatedAt : formatTimestamp(lastChange.atMs),
      created_by: lastChange === null ? null : operatorAccount(lastChange.by),
      configuration: {
        hardware: model.fleet.instanceType,
        min_instances: fleet.minInstances,
        max_instances: fleet.maxInstances,
      },
    },
    instances: { running: fleet.runningInstances, desired: fleet.desiredInstances },
  };
};

/**
 * PATCH /deployments/{company}/{model}: Replicate's deployment update. Only the bounds change at run
 * time; `hardware` and `version` are taken when they name what the deployment runs already (the
 * clients send the whole configuration back), else refused: they are the stack's, changed by a deploy.
 */
export const deploymentChangeSchema = z
  .strictObject({
    min_instances: z.int().optional().describe('Instances kept running, even with nothing to do: 0 or more.'),
    max_instances: z
      .int()
      .optional()
      .describe("The most instances it scales to: at least min_instances, at most the stack's cap for the model."),
    hardware: z.string().optional().describe('Must be the hardware it runs on: changing it takes a deploy.'),
    version: z.string().optional().describe('Must be the version it runs: changing it takes a deploy.'),
  })
  .meta({ id: 'DeploymentChange' });
