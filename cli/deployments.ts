import { userInfo } from 'node:os';
import { dynamoDeploymentLog } from '../shared/adapters/deployment-log.ts';
import { formatTimestamp, systemClock } from '../shared/domain/clock.ts';
import type { BoundsChange, FleetBounds } from '../shared/domain/deployment-bounds.ts';
import { clusterOfModel } from '../shared/fleet-config.ts';
import type { ModelCatalog } from '../shared/catalog/model-catalog.ts';
import type { DeploymentChange } from '../shared/ports/deployment-log.ts';
import {
  allDeployments,
  deploymentOf,
  type Deployment,
  type DeploymentDeps,
} from '../shared/use-cases/read-deployments.ts';
import { updateDeployment } from '../shared/use-cases/update-deployment.ts';
import type { Target } from './target.ts';

/** How many of a deployment's changes `show` lists. */
const SHOWN_CHANGES = 20;

const boundsText = ({ minInstances, maxInstances }: FleetBounds) => `min ${minInstances}, max ${maxInstances}`;

const changeJson = (change: DeploymentChange) => ({
  release: change.release,
  by: change.by,
  at: formatTimestamp(change.atMs),
  before: { min_instances: change.before.minInstances, max_instances: change.before.maxInstances },
  after: { min_instances: change.after.minInstances, max_instances: change.after.maxInstances },
});

/** Newest first; a change whose `before` is not the older one's `after` came after a change made outside the log. */
export const changeLines = (changes: readonly DeploymentChange[]): string[] =>
  changes.map((change, index) => {
    const older = changes[index + 1];
    const outside =
      older !== undefined &&
      (older.after.minInstances !== change.before.minInstances ||
        older.after.maxInstances !== change.before.maxInstances)
        ? `  (the bounds were ${boundsText(change.before)} by then: changed outside prognoz, or by an update that did not finish)`
        : '';
    return `  release ${change.release}  ${formatTimestamp(change.atMs)}  ${change.by}  ${boundsText(change.before)} → ${boundsText(change.after)}${outside}`;
  });

const deploymentJson = ({ model, fleet, lastChange }: Deployment) => ({
  deployment: model.id,
  hardware: model.fleet.instanceType,
  release: lastChange?.release ?? 1,
  min_instances: fleet.minInstances,
  max_instances: fleet.maxInstances,
  max_instances_cap: model.fleet.maxTasksCap,
  running: fleet.runningInstances,
  desired: fleet.desiredInstances,
});

const deploymentText = ({ model, fleet, lastChange }: Deployment) =>
  `${model.id}  ${model.fleet.instanceType}  release ${lastChange?.release ?? 1}  ${boundsText(fleet)} (cap ${model.fleet.maxTasksCap})  running ${fleet.runningInstances}, desired ${fleet.desiredInstances}`;

/** A whole number of instances from an option; anything else is refused here, negatives by the use case. */
const countOption = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (value.trim() === '' || !Number.isInteger(count)) throw new Error(`--${name} takes a whole number, not ${value}`);
  return count;
};

export interface DeploymentOptions {
  readonly 'min-instances'?: string;
  readonly 'max-instances'?: string;
}

/**
 * `deployments show [MODEL]` and `deployments update MODEL --min-instances N --max-instances N`:
 * the operator's side of the deployments, with the operator's own AWS credentials (or the local
 * runtime's endpoints), through the same use cases as PATCH /deployments.
 */
export const deploymentsCommand = async (
  command: string,
  args: readonly string[],
  options: DeploymentOptions,
  target: Target,
  catalog: ModelCatalog,
  print: (data: unknown, text: string) => void,
): Promise<number> => {
  const { fleets } = target;
  if (fleets === null) throw new Error(`the fleets of ${target.description} are not known: give --stack NAME`);
  const deps: DeploymentDeps = {
    fleets: fleets.scaling,
    fleetClusterOf: (model) => clusterOfModel(fleets.clusterPrefix, model),
    log: dynamoDeploymentLog(target.tableName, target.client),
  };
  const id = args[0];
  const model = id === undefined ? undefined : catalog.find(id);
  if (id !== undefined && !model) throw new Error(`there is no model ${id} in the catalog`);
  if (command === 'show' && !model) {
    const all = await allDeployments(deps, catalog.offered);
    print(all.map(deploymentJson), all.map(deploymentText).join('\n') || 'no deployments');
    return 0;
  }
  if (!model) throw new Error('which deployment? give its name, e.g. prognoz/echo');
  if (command === 'show') {
    const deployment = await deploymentOf(deps, model);
    if (!deployment) throw new Error(`there is no deployment ${model.id} in ${target.description}`);
    const changes = await deps.log.changes(model.id, SHOWN_CHANGES);
    print(
      { ...deploymentJson(deployment), changes: changes.map(changeJson) },
      [
        deploymentText(deployment),
        ...(changes.length > 0 ? ['changes:', ...changeLines(changes)] : ['no changes since the deploy']),
      ].join('\n'),
    );
    return 0;
  }
  if (command === 'update') {
    const min = countOption('min-instances', options['min-instances']);
    const max = countOption('max-instances', options['max-instances']);
    if (min === undefined && max === undefined) throw new Error('give --min-instances N, --max-instances N, or both');
    const change: BoundsChange = {
      ...(min !== undefined ? { minInstances: min } : {}),
      ...(max !== undefined ? { maxInstances: max } : {}),
    };
    const updated = await updateDeployment(deps, {
      model,
      change,
      by: `cli:${userInfo().username}`,
      nowMs: systemClock.now(),
    });
    if (!updated.ok) {
      const fields = updated.error.details.fields ?? [];
      throw new Error(
        fields.length > 0
          ? fields.map((f) => `--${f.field.replace('_', '-')} ${f.message}`).join('; ')
          : updated.error.message,
      );
    }
    print(deploymentJson(updated.value), deploymentText(updated.value));
    return 0;
  }
  return 2;
};
