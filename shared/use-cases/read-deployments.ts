import { PrognozError } from '../domain/errors.ts';
import type { ModelDefinition } from '../catalog/registry.ts';
import type { DeploymentChange, DeploymentLog } from '../ports/deployment-log.ts';
import type { FleetScaling, FleetState } from '../ports/fleet-scaling.ts';

export interface DeploymentDeps {
  readonly fleets: FleetScaling;
  readonly fleetClusterOf: (model: Pick<ModelDefinition, 'id'>) => string;
  readonly log: DeploymentLog;
}

/** A model and its fleet as it stands now, with the last change of its bounds: a deployment of the model's name. */
export interface Deployment {
  readonly model: ModelDefinition;
  readonly fleet: FleetState;
  /** null while the bounds are the ones the stack's deploy registered (release 1). */
  readonly lastChange: DeploymentChange | null;
}

export const deploymentNotFound = (id: string): PrognozError =>
  new PrognozError('deployment_not_found', `there is no deployment ${id}`);

/** A model's deployment; null when the stack runs no fleet for it. */
export const deploymentOf = async (deps: DeploymentDeps, model: ModelDefinition): Promise<Deployment | null> => {
  const [fleet, [lastChange = null]] = await Promise.all([
    deps.fleets.state(deps.fleetClusterOf(model)),
    deps.log.changes(model.id, 1),
  ]);
  return fleet === null ? null : { model, fleet, lastChange };
};

/** Every model's deployment, in the catalog's order. */
export const allDeployments = async (deps: DeploymentDeps, models: readonly ModelDefinition[]): Promise<Deployment[]> =>
  (await Promise.all(models.map((model) => deploymentOf(deps, model)))).filter(
    (deployment): deployment is Deployment => deployment !== null,
  );
