import { describe, expect, it } from 'vitest';
import { changeLines } from '../../cli/deployments.ts';
import type { DeploymentChange } from '../../shared/ports/deployment-log.ts';
import { T0 } from '../support/in-memory/clock.ts';

const change = (release: number, before: [number, number], after: [number, number]): DeploymentChange => ({
  model: 'acme/a',
  release,
  by: `ops${release}@example.com`,
  atMs: T0 + release * 1000,
  before: { minInstances: before[0], maxInstances: before[1] },
  after: { minInstances: after[0], maxInstances: after[1] },
});

describe('`npx prognoz deployments show`', () => {
  it('lists the changes newest first, and marks one whose bounds before are not what the older change left', () => {
    const lines = changeLines([change(4, [2, 4], [0, 4]), change(3, [1, 2], [1, 4]), change(2, [0, 2], [1, 2])]);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain('release 4');
    expect(lines[0]).toContain('min 2, max 4 → min 0, max 4');
    // Release 3 left min 1; release 4 found min 2: a change outside the log came between.
    expect(lines[0]).toContain('changed outside prognoz');
    expect(lines[1]).not.toContain('outside');
    expect(lines[2]).toContain('ops2@example.com');
  });
});
