import { scalableTargetIdOf } from '../fleet-config.ts';
import type { FleetScaling } from '../ports/fleet-scaling.ts';

/**
 * Where the clients reach, when not the SDKs' defaults (the region and credentials of the
 * environment): the local runtime's endpoint, or a given region and credentials.
 */
export interface FleetClientsConfig {
  readonly endpoint?: string;
  readonly region?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

// Imported at the first use, not at a function's cold start: only the deployments routes read the
// fleets, and every API function shares the adapters' module.
const ecsSdk = () => import('@aws-sdk/client-ecs');
const scalingSdk = () => import('@aws-sdk/client-application-auto-scaling');
const clientsFor = (config: FleetClientsConfig) =>
  Promise.all([ecsSdk(), scalingSdk()]).then(([{ ECSClient }, { ApplicationAutoScalingClient }]) => ({
    ecs: new ECSClient(config),
    scaling: new ApplicationAutoScalingClient(config),
  }));

/** The service's name from its ARN (`arn:aws:ecs:…:service/<cluster>/<name>`), as scalable targets name it. */
const serviceNameOf = (arn: string): string => arn.split('/').at(-1) ?? arn;

const DIMENSION = { ServiceNamespace: 'ecs', ScalableDimension: 'ecs:service:DesiredCount' } as const;

/**
 * A fleet is the one ECS service on its model's cluster: its counts from DescribeServices, its
 * bounds the scalable target's that Application Auto Scaling keeps for its desired count.
 */
export const awsFleetScaling = (config: FleetClientsConfig = {}): FleetScaling => {
  let made: ReturnType<typeof clientsFor> | undefined;
  const clients = () => (made ??= clientsFor(config));
  /** The ARN of the cluster's one service; null when there is no such cluster or service. */
  const serviceOf = async (cluster: string): Promise<string | null> => {
    const [{ ecs }, { ListServicesCommand }] = await Promise.all([clients(), ecsSdk()]);
    try {
      const { serviceArns = [] } = await ecs.send(new ListServicesCommand({ cluster, maxResults: 1 }));
      return serviceArns[0] ?? null;
    } catch (error) {
      if (error instanceof Error && error.name === 'ClusterNotFoundException') return null;
      throw error;
    }
  };
  return {
    async state(cluster) {
      const arn = await serviceOf(cluster);
      if (arn === null) return null;
      const [{ ecs, scaling }, { DescribeServicesCommand }, { DescribeScalableTargetsCommand }] = await Promise.all([
        clients(),
        ecsSdk(),
        scalingSdk(),
      ]);
      const { services = [] } = await ecs.send(new DescribeServicesCommand({ cluster, services: [arn] }));
      const [service] = services;
      if (!service) return null;
      const { ScalableTargets: targets = [] } = await scaling.send(
        new DescribeScalableTargetsCommand({
          ...DIMENSION,
          ResourceIds: [scalableTargetIdOf(cluster, serviceNameOf(arn))],
        }),
      );
      const [target] = targets;
      if (!target) throw new Error(`the fleet on ${cluster} has no scalable target`);
      return {
        minInstances: target.MinCapacity ?? 0,
        maxInstances: target.MaxCapacity ?? 0,
        desiredInstances: service.desiredCount ?? 0,
        runningInstances: service.runningCount ?? 0,
      };
    },
    async resize(cluster, { minInstances, maxInstances }) {
      const arn = await serviceOf(cluster);
      if (arn === null) throw new Error(`there is no fleet on ${cluster}`);
      const [{ scaling }, { RegisterScalableTargetCommand }] = await Promise.all([clients(), scalingSdk()]);
      // Registering a target that exists changes only the bounds given: its policies stay, and
      // Application Auto Scaling moves the desired count into the new bounds at once.
      await scaling.send(
        new RegisterScalableTargetCommand({
          ...DIMENSION,
          ResourceId: scalableTargetIdOf(cluster, serviceNameOf(arn)),
          MinCapacity: minInstances,
          MaxCapacity: maxInstances,
        }),
      );
    },
  };
};
