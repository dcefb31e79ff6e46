import { boundsAfter, sameBounds, type BoundsChange } from '../domain/deployment-bounds.ts';
import { PrognozError } from '../domain/errors.ts';
import { err, ok, type Result } from '../domain/result.ts';
import type { ModelDefinition } from '../models/registry.ts';
import { deploymentOf, type Deployment, type DeploymentDeps } from './read-deployments.ts';

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
  if (current === null) return err(new PrognozError('deployment_not_found', `there is no deployment ${model.id}`));
  const before = { minInstances: current.fleet.minInstances, maxInstances: current.fleet.maxInstances };
  const after = boundsAfter(before, update.change, model.fleet.maxTasksCap);
  if (!after.ok) {
    const [first] = after.error;
    return err(
      new PrognozError('invalid_configuration', `${first?.field ?? 'the change'} ${first?.message ?? 'is not valid'}`, {
        fields: after.error,
      }),
    );
  }
  if (sameBounds(before, after.value)) return ok(current);
  const cluster = deps.fleetClusterOf(model);
  await deps.fleets.resize(cluster, after.value);
  let release = (current.lastChange?.release ?? 1) + 1;
  for (let attempt = 1; ; attempt++) {
    const change = { model: model.id, release, by: update.by, atMs: update.nowMs, before, after: after.value };
    if (await deps.log.record(change)) break;
    if (attempt === RECORD_ATTEMPTS)
      throw new Error(`could not record the change of ${model.id}: its releases kept being taken`);
    const [latest] = await deps.log.changes(model.id, 1);
    release = (latest?.release ?? release) + 1;
  }
  const changed = await deploymentOf(deps, model);
  if (changed === null) return err(new PrognozError('deployment_not_found', `there is no deployment ${model.id}`));
  return ok(changed);
};
