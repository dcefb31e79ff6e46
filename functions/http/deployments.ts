import type * as z from 'zod';
import { deploymentView, type deploymentListSchema } from '../../shared/api/deployment-view.ts';
import { PrognozError } from '../../shared/domain/errors.ts';
import { allModels, findModel } from '../../shared/models/registry.ts';
import { allDeployments, deploymentOf, type DeploymentDeps } from '../../shared/use-cases/read-deployments.ts';
import type { ApiDeps } from './deps.ts';
import { httpHandler } from './pipeline.ts';
import { modelIdOf } from './model-path.ts';
import { json } from './respond.ts';

/** What the deployments routes read the fleets with; a function deployed without the fleets' names is misconfigured. */
const deploymentDepsOf = (deps: ApiDeps): DeploymentDeps => {
  const { fleetClusterOf } = deps;
  if (fleetClusterOf === null)
    throw new PrognozError(
      'internal_error',
      'this function is not told where the fleets are (PROGNOZ_FLEET_CLUSTER_PREFIX)',
    );
  return { fleets: deps.fleets, fleetClusterOf };
};

/**
 * GET /api/v1/deployments and GET /api/v1/deployments/{company}/{model}: each model's fleet as a
 * Replicate deployment of the model's name, its bounds and the instances it runs now.
 */
export const handler = httpHandler(async (event, _context, deps) => {
  const fleets = deploymentDepsOf(deps);
  if (event.resource === '/api/v1/deployments') {
    return json(200, {
      results: (await allDeployments(fleets, allModels())).map(({ model, fleet }) => deploymentView(model, fleet)),
      next: null,
      previous: null,
    } satisfies z.infer<typeof deploymentListSchema>);
  }
  const id = modelIdOf(event);
  const model = findModel(id);
  const deployment = model ? await deploymentOf(fleets, model) : null;
  if (!deployment) throw new PrognozError('deployment_not_found', `there is no deployment ${id}`);
  return json(200, deploymentView(deployment.model, deployment.fleet));
});
