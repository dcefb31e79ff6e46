import { ApiError, serveAwsJson, type AwsJsonServer } from './aws-json-server.ts';
import { scalableTargetIdOf } from '../shared/fleet-config.ts';
import type { FleetBounds } from '../shared/domain/deployment-bounds.ts';
import type { FleetState } from '../shared/ports/fleet-scaling.ts';

/** One model's fleet as the local runtime runs it: its cluster's name, how it stands now, and its bounds to change. */
export interface LocalFleet {
  readonly cluster: string;
  readonly state: () => FleetState;
  readonly resize: (bounds: FleetBounds) => void;
}

const ACCOUNT = '000000000000';
const REGION = 'us-east-1';

/** Each local cluster's one service. */
const serviceNameOf = (cluster: string) => `${cluster}-service`;
const serviceArnOf = (cluster: string) =>
  `arn:aws:ecs:${REGION}:${ACCOUNT}:service/${cluster}/${serviceNameOf(cluster)}`;
const targetIdOf = (cluster: string) => scalableTargetIdOf(cluster, serviceNameOf(cluster));

/**
 * The slice of ECS and Application Auto Scaling that the API reads a fleet through
 * (shared/adapters/fleet-scaling.ts), answered from the local runtime's own fleets: one service on
 * each model's cluster, its scalable target's bounds, and the model servers it runs now. Served on
 * one endpoint, as the SDK clients are pointed at it (AWS_ENDPOINT_URL_ECS and
 * AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING), so the same adapter runs here and on AWS.
 */
export class LocalFleetEndpoint {
  private server: AwsJsonServer | undefined;

  constructor(private readonly fleets: readonly LocalFleet[]) {}

  private fleetOf(cluster: string): LocalFleet {
    const fleet = this.fleets.find((candidate) => candidate.cluster === cluster);
    if (!fleet) throw new ApiError('ClusterNotFoundException', `Cluster not found: ${cluster}`);
    return fleet;
  }

  private readonly operations: Record<string, (body: Record<string, unknown>) => unknown> = {
    ListServices: (body) => ({ serviceArns: [serviceArnOf(this.fleetOf(String(body.cluster)).cluster)] }),
    DescribeServices: (body) => {
      const fleet = this.fleetOf(String(body.cluster));
      const { desiredInstances, runningInstances } = fleet.state();
      const wanted = (body.services as string[] | undefined) ?? [];
      const arn = serviceArnOf(fleet.cluster);
      return {
        services: wanted
          .filter((name) => name === arn || name === serviceNameOf(fleet.cluster))
          .map(() => ({
            serviceArn: arn,
            serviceName: serviceNameOf(fleet.cluster),
            clusterArn: `arn:aws:ecs:${REGION}:${ACCOUNT}:cluster/${fleet.cluster}`,
            status: 'ACTIVE',
            desiredCount: desiredInstances,
            runningCount: runningInstances,
            pendingCount: 0,
          })),
        failures: [],
      };
    },
    // Of a target that exists, as the fleets' are: only the bounds given change.
    RegisterScalableTarget: (body) => {
      const fleet = this.fleets.find((candidate) => targetIdOf(candidate.cluster) === body.ResourceId);
      if (!fleet)
        throw new ApiError('ValidationException', `No scalable target registered for ${String(body.ResourceId)}`);
      const { minInstances, maxInstances } = fleet.state();
      fleet.resize({
        minInstances: typeof body.MinCapacity === 'number' ? body.MinCapacity : minInstances,
        maxInstances: typeof body.MaxCapacity === 'number' ? body.MaxCapacity : maxInstances,
      });
      return {
        ScalableTargetARN: `arn:aws:application-autoscaling:${REGION}:${ACCOUNT}:scalable-target/${fleet.cluster}`,
      };
    },
    DescribeScalableTargets: (body) => {
      const ids = (body.ResourceIds as string[] | undefined) ?? [];
      return {
        ScalableTargets: this.fleets
          .filter((fleet) => ids.length === 0 || ids.includes(targetIdOf(fleet.cluster)))
          .map((fleet) => {
            const { minInstances, maxInstances } = fleet.state();
            return {
              ServiceNamespace: 'ecs',
              ResourceId: targetIdOf(fleet.cluster),
              ScalableDimension: 'ecs:service:DesiredCount',
              MinCapacity: minInstances,
              MaxCapacity: maxInstances,
              RoleARN: `arn:aws:iam::${ACCOUNT}:role/local`,
              CreationTime: 0,
            };
          }),
      };
    },
  };

  /** Serves the AWS JSON 1.1 protocol of both services; answers with its URL. */
  async listen(): Promise<string> {
    this.server = await serveAwsJson({ version: '1.1', operations: this.operations });
    return this.server.url;
  }

  async close(): Promise<void> {
    await this.server?.close();
  }
}
