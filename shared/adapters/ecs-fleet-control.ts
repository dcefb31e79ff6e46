import { DescribeServicesCommand, ECSClient, UpdateServiceCommand } from '@aws-sdk/client-ecs';
import type { FleetServices } from '../ports/fleet-control.ts';

// Built here rather than in aws-clients.ts: only the sweeper reaches ECS, and every function
// that imports aws-clients.ts would load this client at its cold start.
let ecsClient: ECSClient | undefined;
const ecs = (): ECSClient => (ecsClient ??= new ECSClient({}));

/** The fleets' services on ECS: a desired count read with DescribeServices, set with UpdateService. */
export const ecsFleetServices = (client: ECSClient = ecs()): FleetServices => ({
  async desiredTasks({ cluster, service }) {
    const { services = [], failures = [] } = await client.send(
      new DescribeServicesCommand({ cluster, services: [service] }),
    );
    const [found] = services;
    // ECS answers a service it does not have with a failure (MISSING), not an error.
    if (!found) throw new Error(`ECS has no service ${service} in ${cluster}: ${failures[0]?.reason ?? 'not found'}`);
    if (found.desiredCount === undefined) throw new Error(`ECS gave no desired count for ${service} in ${cluster}`);
    return found.desiredCount;
  },
  async setDesiredTasks({ cluster, service }, tasks) {
    await client.send(new UpdateServiceCommand({ cluster, service, desiredCount: tasks }));
  },
});
