import type { ModelDefinition } from './catalog/definition.ts';
import { NAME_LIMITS, nameAfterModel } from './catalog/resource-names.ts';

/** The start of the name of each of a stack's fleet clusters. */
export const fleetClusterPrefixOf = (stackName: string): string => `${stackName}-`;

/** A model's fleet runs on a cluster of its own, named after the stack and the model. */
export const fleetClusterName = (stackName: string, model: Pick<ModelDefinition, 'id'>): string =>
  clusterOfModel(fleetClusterPrefixOf(stackName), model);

/** A model's cluster, from the prefix its stack gives every fleet's cluster. */
export const clusterOfModel = (prefix: string, model: Pick<ModelDefinition, 'id'>): string =>
  nameAfterModel(prefix, model.id, NAME_LIMITS.cluster);

/** The id Application Auto Scaling knows an ECS service's scalable target by. */
export const scalableTargetIdOf = (cluster: string, service: string): string => `service/${cluster}/${service}`;

/** The path of a stack's fleet parameters, which the sweeper is told (SWEEPER_ENV.fleetsPath). */
export const fleetsPathOf = (stackName: string): string => `/${stackName}/fleets`;

/** A fleet's parameter's name: under its stack's path, named after its model. */
export const fleetParameterNameOf = (stackName: string, model: Pick<ModelDefinition, 'id'>): string =>
  nameAfterModel(`${fleetsPathOf(stackName)}/`, model.id, NAME_LIMITS.parameter);
