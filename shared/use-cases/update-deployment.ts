import { boundsAfter, configurationRefused, sameBounds, type BoundsChange } from '../domain/deployment-bounds.ts';
import type { PrognozError } from '../domain/errors.ts';
import { err, ok, type Result } from '../domain/result.ts';
import type { ModelDefinition } from '../catalog/registry.ts';
import type { DeploymentChange } from '../ports/deployment-log.ts';
import { deploymentNotFound, deploymentOf, type Deployment, type DeploymentDeps } from './read-deployments.ts';

export interface DeploymentUpdate {
  readonly model: ModelDefinition;
  readonly change: BoundsChange;
  /** Who asks: an operator's email, or `cli:<user>`. */
  readonly by: string;
  readonly nowMs: number;
}

/** Release numbers taken by changes made at the same moment, tried past before giving up. */
const RECORD_ATTEMPTS = 5;

/**
 * Changes a deployment's bounds from now on, and records who changed them, when, from what and to
 * what. The fleet's scalable target is the one source of its bounds: `before` is what it holds now,
 * whatever changed it last. A change to the bounds it has already is no change: nothing is recorded.
 *
 * The bounds are set before the change is recorded, so a record never claims a change that was not
 * made. A process that dies between the two leaves the change unrecorded; the next record's `before`
 * shows it (`npx prognoz deployments show` marks a change made outside the log).
 */
export const updateDeployment = async (
  deps: DeploymentDeps,
  update: DeploymentUpdate,
): Promise<Result<Deployment, PrognozError>> => {
  const { model } = update;
  const current = await deploymentOf(deps, model);
  if (current === null) return err(deploymentNotFound(model.id));
  const before = { minInstances: current.fleet.minInstances, maxInstances: current.fleet.maxInstances };
  const after = boundsAfter(before, update.change, model.fleet.maxTasksCap);
  if (!after.ok) return err(configurationRefused(after.error));
  if (sameBounds(before, after.value)) return ok(current);
  const cluster = deps.fleetClusterOf(model);
  await deps.fleets.resize(cluster, after.value);
  let change: DeploymentChange = {
    model: model.id,
    release: (current.lastChange?.release ?? 1) + 1,
    by: update.by,
    atMs: update.nowMs,
    before,
    after: after.value,
  };
  for (let attempt = 1; !(await deps.log.record(change)); attempt++) {
    if (attempt === RECORD_ATTEMPTS)
      throw new Error(`could not record the change of ${model.id}: its releases kept being taken`);
    const [latest] = await deps.log.changes(model.id, 1);
    change = { ...change, release: (latest?.release ?? change.release) + 1 };
  }
  // The fleet as it stands after the resize (its desired count moved into the bounds), with this change.
  const fleet = await deps.fleets.state(cluster);
  if (fleet === null) return err(deploymentNotFound(model.id));
  return ok({ model, fleet, lastChange: change });
};
