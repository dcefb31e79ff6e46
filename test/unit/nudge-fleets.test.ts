import { describe, expect, it } from 'vitest';
import { SWEEPER_ENV, sweeperConfigFromEnv } from '../../shared/config/sweeper.ts';
import { fleetsPathOf } from '../../shared/fleet-config.ts';
import { parseFleetParameter } from '../../shared/fleet-parameter.ts';
import type { Fleet, FleetServices, JobQueues } from '../../shared/ports/fleet-control.ts';
import { nudgeFleets } from '../../shared/use-cases/nudge-fleets.ts';
import { testCatalog } from '../support/catalog.ts';

/** Queues and services in memory: jobs waiting by queue URL, desired counts by cluster/service. */
const fleetsInMemory = (
  setup: Record<string, { waiting: number; desired: number; fails?: 'queue' | 'describe' | 'update' }>,
) => {
  const desired = new Map(
    Object.entries(setup).map(([model, fleet]) => [`${model}-cluster/${model}-service`, fleet.desired]),
  );
  const updates: string[] = [];
  const failing = (model: string, call: 'queue' | 'describe' | 'update') => {
    if (setup[model]?.fails === call) throw new Error(`${call} of ${model} failed`);
  };
  const modelOf = (key: string) => key.slice(0, key.indexOf('-'));
  const queues: JobQueues = {
    waitingJobs(queueUrl) {
      const model = queueUrl.slice('queue:'.length);
      failing(model, 'queue');
      return Promise.resolve(setup[model]?.waiting ?? 0);
    },
  };
  const services: FleetServices = {
    desiredTasks({ cluster, service }) {
      failing(modelOf(cluster), 'describe');
      const count = desired.get(`${cluster}/${service}`);
      return count === undefined ? Promise.reject(new Error('no such service')) : Promise.resolve(count);
    },
    setDesiredTasks({ cluster, service }, tasks) {
      failing(modelOf(cluster), 'update');
      desired.set(`${cluster}/${service}`, tasks);
      updates.push(`${cluster}/${service}=${tasks}`);
      return Promise.resolve();
    },
  };
  const fleets: Fleet[] = Object.keys(setup).map((model) => ({
    modelId: model,
    queueUrl: `queue:${model}`,
    cluster: `${model}-cluster`,
    service: `${model}-service`,
  }));
  const desiredOf = (model: string) => desired.get(`${model}-cluster/${model}-service`);
  return { deps: { queues, services }, fleets, desiredOf, updates };
};

describe('waking fleets at zero', () => {
  it('asks a fleet at zero with jobs waiting for one task, and changes nothing else', async () => {
    const { deps, fleets, desiredOf, updates } = fleetsInMemory({
      cold: { waiting: 3, desired: 0 },
      quiet: { waiting: 0, desired: 0 },
      warm: { waiting: 2, desired: 1 },
      idle: { waiting: 0, desired: 2 },
    });
    const report = await nudgeFleets(deps, fleets);
    expect(report).toEqual({ cold: 'nudged', quiet: 'idle', warm: 'wanted', idle: 'idle' });
    expect(updates).toEqual(['cold-cluster/cold-service=1']);
    expect([desiredOf('cold'), desiredOf('quiet'), desiredOf('warm'), desiredOf('idle')]).toEqual([1, 0, 1, 2]);
  });

  it('never lowers a count: a fleet that wants many tasks keeps them, however many jobs wait', async () => {
    const { deps, fleets, desiredOf, updates } = fleetsInMemory({ busy: { waiting: 40, desired: 8 } });
    expect(await nudgeFleets(deps, fleets)).toEqual({ busy: 'wanted' });
    expect(desiredOf('busy')).toBe(8);
    expect(updates).toEqual([]);
  });

  it('wakes a fleet once: the next sweep finds it wanting a task', async () => {
    const { deps, fleets, updates } = fleetsInMemory({ cold: { waiting: 1, desired: 0 } });
    expect(await nudgeFleets(deps, fleets)).toEqual({ cold: 'nudged' });
    expect(await nudgeFleets(deps, fleets)).toEqual({ cold: 'wanted' });
    expect(updates).toHaveLength(1);
  });

  it('goes on past a fleet whose queue or service fails, and says which failed and why', async () => {
    const { deps, fleets, desiredOf } = fleetsInMemory({
      broken: { waiting: 1, desired: 0, fails: 'queue' },
      denied: { waiting: 1, desired: 0, fails: 'update' },
      hidden: { waiting: 1, desired: 0, fails: 'describe' },
      cold: { waiting: 1, desired: 0 },
    });
    const errors: [string, string][] = [];
    const report = await nudgeFleets(deps, fleets, (model, error) => errors.push([model, String(error)]));
    expect(report).toEqual({ broken: 'error', denied: 'error', hidden: 'error', cold: 'nudged' });
    expect(desiredOf('cold')).toBe(1);
    expect(desiredOf('denied')).toBe(0);
    expect(errors.sort()).toEqual([
      ['broken', 'Error: queue of broken failed'],
      ['denied', 'Error: update of denied failed'],
      ['hidden', 'Error: describe of hidden failed'],
    ]);
  });

  it('has nothing to do without fleets', async () => {
    const { deps } = fleetsInMemory({});
    expect(await nudgeFleets(deps, [])).toEqual({});
  });
});

describe(`the fleets the stack lists (${SWEEPER_ENV.fleetsPath}, and a parameter a fleet)`, () => {
  const fleetsPathOfEnv = (fleets: Record<string, string>) =>
    sweeperConfigFromEnv(
      {
        [SWEEPER_ENV.tableName]: 'Table',
        [SWEEPER_ENV.webhookQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks',
        [SWEEPER_ENV.stateMachinePrefix]: 'arn:aws:states:eu-west-1:123456789012:stateMachine:Prognoz-',
        [SWEEPER_ENV.waiterQueuePrefix]: 'Prognoz-waiter-',
        ...fleets,
      },
      testCatalog,
    ).fleetsPath;

  it('are none where the variable is not set', () => {
    expect(fleetsPathOfEnv({})).toBeNull();
  });

  it('are under the Parameter Store path the variable names', () => {
    expect(fleetsPathOfEnv({ [SWEEPER_ENV.fleetsPath]: fleetsPathOf('Prognoz') })).toBe('/Prognoz/fleets');
    expect(() => fleetsPathOfEnv({ [SWEEPER_ENV.fleetsPath]: '{"acme/echo":{}}' })).toThrow(/Parameter Store path/);
  });

  it('each read from its parameter’s JSON', () => {
    const fleet = {
      modelId: 'acme/echo',
      queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/echo',
      cluster: 'Prognoz-acme-echo',
      service: 'Prognoz-acme-echo-service',
    };
    expect(parseFleetParameter('/Prognoz/fleets/acme-echo', JSON.stringify(fleet))).toEqual(fleet);
  });

  it('refused, naming the parameter, when one is not JSON or misses a part', () => {
    expect(() => parseFleetParameter('/Prognoz/fleets/a', '{not json')).toThrow('/Prognoz/fleets/a');
    expect(() =>
      parseFleetParameter('/Prognoz/fleets/b', JSON.stringify({ modelId: 'b', queueUrl: 'q', cluster: 'c' })),
    ).toThrow(/service/);
    expect(() => parseFleetParameter('/Prognoz/fleets/c', undefined)).toThrow('/Prognoz/fleets/c');
  });
});
