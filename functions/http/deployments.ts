import type { APIGatewayProxyEvent } from 'aws-lambda';
import type * as z from 'zod';
import { deploymentChangeSchema, deploymentView, type deploymentListSchema } from '../../shared/api/deployment-view.ts';
import { PrognozError, type FieldIssue } from '../../shared/domain/errors.ts';
import type { ModelDefinition } from '../../shared/catalog/definition.ts';
import {
  allDeployments,
  deploymentNotFound,
  deploymentOf,
  type DeploymentDeps,
} from '../../shared/use-cases/read-deployments.ts';
import { configurationRefused } from '../../shared/domain/deployment-bounds.ts';
import { updateDeployment } from '../../shared/use-cases/update-deployment.ts';
import { parseBody, refusedBody } from './body.ts';
import type { ApiDeps } from './deps.ts';
import { operatorOf } from './middleware.ts';
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
  return { fleets: deps.fleets, fleetClusterOf, log: deps.deploymentLog };
};

/** `hardware` and `version` as they are now are no change; any other is the stack's to make. */
const fixedFieldIssues = (model: ModelDefinition, change: z.infer<typeof deploymentChangeSchema>): FieldIssue[] => [
  ...(change.hardware !== undefined && change.hardware !== model.fleet.instanceType
    ? [
        {
          field: 'hardware',
          message: `is ${model.fleet.instanceType}: the fleet's instance type changes with models/manifest.json and a deploy`,
        },
      ]
    : []),
  ...(change.version !== undefined && change.version !== model.id
    ? [{ field: 'version', message: `is ${model.id}, the model's one version: a new one comes with a deploy` }]
    : []),
];

/** PATCH: an operator changes the deployment's bounds; the change is recorded with its email. */
const update = async (
  event: APIGatewayProxyEvent,
  deps: ApiDeps,
  model: ModelDefinition,
  operator: ReturnType<typeof operatorOf>,
) => {
  const parsed = deploymentChangeSchema.safeParse(parseBody(event).value);
  if (!parsed.success) throw refusedBody('invalid_body', 'a deployment change', parsed.error);
  const fixed = fixedFieldIssues(model, parsed.data);
  if (fixed.length > 0) throw configurationRefused(fixed);
  const owner = (await deps.accounts.ownersOf(operator.account)).find((link) => link.sub === operator.sub);
  const updated = await updateDeployment(deploymentDepsOf(deps), {
    model,
    change: {
      ...(parsed.data.min_instances !== undefined ? { minInstances: parsed.data.min_instances } : {}),
      ...(parsed.data.max_instances !== undefined ? { maxInstances: parsed.data.max_instances } : {}),
    },
    by: owner?.email ?? `owner ${operator.sub}`,
    nowMs: deps.clock.now(),
  });
  if (!updated.ok) throw updated.error;
  return json(200, deploymentView(updated.value));
};

/**
 * GET /api/v1/deployments, GET and PATCH /api/v1/deployments/{company}/{model}: each model's fleet
 * as a Replicate deployment of the model's name, its bounds and the instances it runs now; an
 * operator changes the bounds.
 */
export const handler = httpHandler(async (event, _context, deps) => {
  if (event.resource === '/api/v1/deployments') {
    return json(200, {
      results: (await allDeployments(deploymentDepsOf(deps), deps.catalog.offered)).map(deploymentView),
      next: null,
      previous: null,
    } satisfies z.infer<typeof deploymentListSchema>);
  }
  const id = modelIdOf(event);
  const model = deps.catalog.find(id);
  if (event.httpMethod === 'PATCH') {
    // Who may change it is settled first: an account's token learns nothing from a PATCH.
    const operator = operatorOf(event, "change a deployment's bounds");
    if (!model) throw deploymentNotFound(id);
    return update(event, deps, model, operator);
  }
  const deployment = model ? await deploymentOf(deploymentDepsOf(deps), model) : null;
  if (!deployment) throw deploymentNotFound(id);
  return json(200, deploymentView(deployment));
});
