import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalFleetEndpoint } from '../../local/fleets.ts';
import { awsFleetScaling } from '../../shared/adapters/fleet-scaling.ts';
import { deploymentView } from '../../shared/api/deployment-view.ts';
import { allDeployments } from '../../shared/use-cases/read-deployments.ts';
import { clusterOfModel } from '../../shared/fleet-config.ts';
import { fixtureModel } from '../support/fleet.ts';
import { inMemoryDeploymentLog } from '../support/in-memory/deployment-log.ts';

const gpu = fixtureModel('gpu-model', {
  id: 'acme/gpu',
  fleet: { instanceType: 'g5.xlarge', minWarmTasks: 1, maxTasks: 4 },
});
const cpu = fixtureModel('cpu-model', { id: 'acme/cpu' });
let running = 0;
let bounds = { minInstances: 1, maxInstances: 4 };
const endpoint = new LocalFleetEndpoint([
  {
    cluster: clusterOfModel('Stack-', gpu),
    state: () => ({ ...bounds, desiredInstances: 2, runningInstances: running }),
    resize: (to) => {
      bounds = to;
    },
  },
]);
let url = '';
beforeAll(async () => {
  url = await endpoint.listen();
});
afterAll(() => endpoint.close());

/** The adapter the deployments routes use on AWS, its SDK clients pointed at the local runtime's endpoint. */
const scaling = () =>
  awsFleetScaling({ endpoint: url, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });

describe("a fleet read through ECS and Application Auto Scaling (the local runtime's endpoint)", () => {
  it("gives the bounds of the service's scalable target and its counts now", async () => {
    running = 2;
    expect(await scaling().state('Stack-acme-gpu')).toEqual({
      minInstances: 1,
      maxInstances: 4,
      desiredInstances: 2,
      runningInstances: 2,
    });
  });

  it('is none for a cluster the stack does not have', async () => {
    expect(await scaling().state('Stack-acme-cpu')).toBeNull();
  });

  it("sets the scalable target's bounds (RegisterScalableTarget), and refuses a cluster with no fleet", async () => {
    await scaling().resize('Stack-acme-gpu', { minInstances: 0, maxInstances: 3 });
    expect(await scaling().state('Stack-acme-gpu')).toMatchObject({ minInstances: 0, maxInstances: 3 });
    await expect(scaling().resize('Stack-acme-cpu', { minInstances: 0, maxInstances: 1 })).rejects.toThrow(/no fleet/);
    bounds = { minInstances: 1, maxInstances: 4 };
  });

  it("makes each model's deployment, leaving out a model with no fleet", async () => {
    running = 1;
    const deployments = await allDeployments(
      {
        fleets: scaling(),
        fleetClusterOf: (model) => clusterOfModel('Stack-', model),
        log: inMemoryDeploymentLog(),
      },
      [gpu, cpu],
    );
    const fleet = { minInstances: 1, maxInstances: 4, desiredInstances: 2, runningInstances: 1 };
    expect(deployments).toEqual([{ model: gpu, fleet, lastChange: null }]);
    expect(deploymentView({ model: gpu, fleet, lastChange: null })).toMatchObject({
      owner: 'acme',
      name: 'gpu',
      current_release: {
        number: 1,
        created_by: null,
        configuration: { hardware: 'g5.xlarge', min_instances: 1, max_instances: 4 },
      },
      instances: { running: 1, desired: 2 },
    });
  });
});
