import type { ModelDefinition } from '../models/registry.ts';
import type { FleetScaling, FleetState } from '../ports/fleet-scaling.ts';

export interface DeploymentDeps {
  readonly fleets: FleetScaling;
  readonly fleetClusterOf: (model: Pick<ModelDefinition, 'id'>) => string;
}

/** A model and its fleet as it stands now: a deployment of the model's name. */
export interface Deployment {
  readonly model: ModelDefinition;
  readonly fleet: FleetState;
}

/** A model's deployment; null when the stack runs no fleet for it. */
export const deploymentOf = async (deps: DeploymentDeps, model: ModelDefinition): Promise<Deployment | null> => {
  const fleet = await deps.fleets.state(deps.fleetClusterOf(model));
  return fleet === null ? null : { model, fleet };
};

/** Every model's deployment, in the catalog's order. */
export const allDeployments = async (deps: DeploymentDeps, models: readonly ModelDefinition[]): Promise<Deployment[]> =>
  (await Promise.all(models.map((model) => deploymentOf(deps, model)))).filter(
    (deployment): deployment is Deployment => deployment !== null,
  );
