import type { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import type { ECSClient } from '@aws-sdk/client-ecs';
import { scalableTargetIdOf } from '../fleet-config.ts';
import type { FleetScaling } from '../ports/fleet-scaling.ts';

interface Clients {
  readonly ecs: ECSClient;
  readonly scaling: ApplicationAutoScalingClient;
}

// Imported at the first use, not at a function's cold start: only the deployments routes read the
// fleets, and every API function shares the adapters' module.
const ecsSdk = () => import('@aws-sdk/client-ecs');
const scalingSdk = () => import('@aws-sdk/client-application-auto-scaling');
let defaults: Promise<Clients> | undefined;
const defaultClients = (): Promise<Clients> =>
  (defaults ??= Promise.all([ecsSdk(), scalingSdk()]).then(([{ ECSClient }, { ApplicationAutoScalingClient }]) => ({
    ecs: new ECSClient({}),
    scaling: new ApplicationAutoScalingClient({}),
  })));

/** The service's name from its ARN (`arn:aws:ecs:…:service/<cluster>/<name>`), as scalable targets name it. */
const serviceNameOf = (arn: string): string => arn.split('/').at(-1) ?? arn;

/**
 * A fleet is the one ECS service on its model's cluster: its counts from DescribeServices, its
 * bounds from the scalable target Application Auto Scaling keeps for its desired count.
 */
export const awsFleetScaling = (given?: Clients): FleetScaling => ({
  async state(cluster) {
    const [{ ecs, scaling }, { ListServicesCommand, DescribeServicesCommand }, { DescribeScalableTargetsCommand }] =
      await Promise.all([given ? Promise.resolve(given) : defaultClients(), ecsSdk(), scalingSdk()]);
    let serviceArns: string[];
    try {
      ({ serviceArns = [] } = await ecs.send(new ListServicesCommand({ cluster, maxResults: 1 })));
    } catch (error) {
      if (error instanceof Error && error.name === 'ClusterNotFoundException') return null;
      throw error;
    }
    const [arn] = serviceArns;
    if (arn === undefined) return null;
    const { services = [] } = await ecs.send(new DescribeServicesCommand({ cluster, services: [arn] }));
    const [service] = services;
    if (!service) return null;
    const { ScalableTargets: targets = [] } = await scaling.send(
      new DescribeScalableTargetsCommand({
        ServiceNamespace: 'ecs',
        ScalableDimension: 'ecs:service:DesiredCount',
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
});
