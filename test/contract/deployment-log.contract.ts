import { describe, expect, it } from 'vitest';
import type { DeploymentChange, DeploymentLog } from '../../shared/ports/deployment-log.ts';
import { T0 } from '../support/in-memory/clock.ts';

export type MakeDeploymentLog = () => Promise<DeploymentLog>;

const change = (model: string, release: number, by = 'ops@example.com'): DeploymentChange => ({
  model,
  release,
  by,
  atMs: T0 + release * 1000,
  before: { minInstances: release - 2, maxInstances: 4 },
  after: { minInstances: release - 1, maxInstances: 4 },
});

/** What every DeploymentLog does, whatever keeps the changes. */
export const describeDeploymentLogContract = (name: string, make: MakeDeploymentLog) =>
  describe(`${name}: the deployment log`, () => {
    it("gives a deployment's changes newest first, as recorded, and none of another's", async () => {
      const log = await make();
      expect(await log.changes('acme/a', 10)).toEqual([]);
      for (const release of [2, 3, 4, 10, 11]) expect(await log.record(change('acme/a', release))).toBe(true);
      await log.record(change('acme/b', 2));
      expect((await log.changes('acme/a', 10)).map((c) => c.release)).toEqual([11, 10, 4, 3, 2]);
      expect(await log.changes('acme/a', 2)).toEqual([change('acme/a', 11), change('acme/a', 10)]);
      expect(await log.changes('acme/b', 10)).toEqual([change('acme/b', 2)]);
    });

    it('refuses a release number that is taken, and keeps the first', async () => {
      const log = await make();
      expect(await log.record(change('acme/c', 2, 'first@example.com'))).toBe(true);
      expect(await log.record(change('acme/c', 2, 'second@example.com'))).toBe(false);
      expect((await log.changes('acme/c', 10)).map((c) => c.by)).toEqual(['first@example.com']);
    });
  });
