import { describe, expect, it } from 'vitest';
import { deploymentView } from '../../shared/api/deployment-view.ts';
import type { FleetBounds } from '../../shared/domain/deployment-bounds.ts';
import type { FleetScaling } from '../../shared/ports/fleet-scaling.ts';
import { deploymentOf } from '../../shared/use-cases/read-deployments.ts';
import { updateDeployment } from '../../shared/use-cases/update-deployment.ts';
import { fixtureModel } from '../support/fleet.ts';
import { inMemoryDeploymentLog } from '../support/in-memory/deployment-log.ts';
import { T0 } from '../support/in-memory/clock.ts';
import { answer } from '../support/in-memory/answer.ts';

const model = fixtureModel('cpu-model', { id: 'acme/cpu', fleet: { minWarmTasks: 0, maxTasks: 2, maxTasksCap: 6 } });

/** One fleet, its scalable target in memory; every resize is counted. */
const setUp = (first: FleetBounds = { minInstances: 0, maxInstances: 2 }) => {
  let bounds = first;
  const resizes: FleetBounds[] = [];
  const fleets: FleetScaling = {
    state: (cluster) =>
      answer(() =>
        cluster === 'Stack-acme-cpu' ? { ...bounds, desiredInstances: bounds.minInstances, runningInstances: 0 } : null,
      ),
    resize: (_cluster, to) =>
      answer(() => {
        resizes.push(to);
        bounds = to;
      }),
  };
  const log = inMemoryDeploymentLog();
  const deps = { fleets, log, fleetClusterOf: () => 'Stack-acme-cpu' };
  return { deps, log, resizes, bounds: () => bounds };
};

const at = (n: number) => T0 + n * 60_000;

describe("changing a deployment's bounds", () => {
  it('sets them and records each change as the next release: who, when, before, after', async () => {
    const { deps, log, bounds } = setUp();
    const first = await updateDeployment(deps, {
      model,
      change: { minInstances: 1, maxInstances: 4 },
      by: 'ops@example.com',
      nowMs: at(1),
    });
    expect(first.ok && deploymentView(first.value).current_release).toMatchObject({
      number: 2,
      created_by: { username: 'ops@example.com' },
      configuration: { min_instances: 1, max_instances: 4 },
    });
    const second = await updateDeployment(deps, { model, change: { maxInstances: 6 }, by: 'cli:anna', nowMs: at(2) });
    expect(second.ok).toBe(true);
    expect(bounds()).toEqual({ minInstances: 1, maxInstances: 6 });
    expect(await log.changes(model.id, 10)).toEqual([
      {
        model: model.id,
        release: 3,
        by: 'cli:anna',
        atMs: at(2),
        before: { minInstances: 1, maxInstances: 4 },
        after: { minInstances: 1, maxInstances: 6 },
      },
      {
        model: model.id,
        release: 2,
        by: 'ops@example.com',
        atMs: at(1),
        before: { minInstances: 0, maxInstances: 2 },
        after: { minInstances: 1, maxInstances: 4 },
      },
    ]);
  });

  it('refuses, naming the field, what the fleet cannot take, and changes nothing', async () => {
    const { deps, log, resizes } = setUp();
    const refused = async (change: { minInstances?: number; maxInstances?: number }) => {
      const result = await updateDeployment(deps, { model, change, by: 'ops@example.com', nowMs: at(1) });
      if (result.ok) throw new Error('accepted');
      expect(result.error.code).toBe('invalid_configuration');
      return result.error.details.fields?.map((issue) => issue.field);
    };
    expect(await refused({ minInstances: -1 })).toEqual(['min_instances']);
    expect(await refused({ maxInstances: -3 })).toEqual(['max_instances']);
    expect(await refused({ minInstances: 1.5 })).toEqual(['min_instances']);
    expect(await refused({ minInstances: 3, maxInstances: 2 })).toEqual(['min_instances']);
    // Against the bounds it has: max 2 now.
    expect(await refused({ minInstances: 3 })).toEqual(['min_instances']);
    expect(await refused({ maxInstances: 7 })).toEqual(['max_instances']);
    expect(resizes).toEqual([]);
    expect(await log.changes(model.id, 10)).toEqual([]);
  });

  it('lowers max below min only with min: max alone below it is refused', async () => {
    const { deps } = setUp({ minInstances: 2, maxInstances: 4 });
    const result = await updateDeployment(deps, { model, change: { maxInstances: 1 }, by: 'x', nowMs: at(1) });
    expect(!result.ok && result.error.details.fields).toEqual([
      { field: 'max_instances', message: 'must not be below min_instances (2)' },
    ]);
  });

  it('records nothing and calls no scaler for bounds it has already', async () => {
    const { deps, log, resizes } = setUp();
    const same = await updateDeployment(deps, { model, change: { maxInstances: 2 }, by: 'x', nowMs: at(1) });
    expect(same.ok).toBe(true);
    expect(resizes).toEqual([]);
    expect(await log.changes(model.id, 10)).toEqual([]);
  });

  it('is a 404 for a model the stack runs no fleet of', async () => {
    const { deps } = setUp();
    const other = fixtureModel('cpu-model', { id: 'acme/other' });
    const result = await updateDeployment(
      { ...deps, fleetClusterOf: () => 'Stack-acme-other' },
      { model: other, change: { minInstances: 1 }, by: 'x', nowMs: at(1) },
    );
    expect(!result.ok && result.error.code).toBe('deployment_not_found');
  });

  it('takes the next release number when a change made at the same time took its own', async () => {
    const { deps, log } = setUp();
    const [a, b] = await Promise.all([
      updateDeployment(deps, { model, change: { minInstances: 1 }, by: 'a', nowMs: at(1) }),
      updateDeployment(deps, { model, change: { maxInstances: 5 }, by: 'b', nowMs: at(1) }),
    ]);
    expect(a.ok && b.ok).toBe(true);
    expect((await log.changes(model.id, 10)).map((change) => change.release).sort()).toEqual([2, 3]);
    expect((await deploymentOf(deps, model))?.lastChange?.release).toBe(3);
  });
});
