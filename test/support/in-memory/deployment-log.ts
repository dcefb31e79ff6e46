import type { DeploymentChange, DeploymentLog } from '../../../shared/ports/deployment-log.ts';
import { answer } from './answer.ts';

export const inMemoryDeploymentLog = (): DeploymentLog => {
  const changes: DeploymentChange[] = [];
  return {
    changes: (model, limit) =>
      answer(() =>
        changes
          .filter((change) => change.model === model)
          .sort((a, b) => b.release - a.release)
          .slice(0, limit),
      ),
    record: (change) =>
      answer(() => {
        if (changes.some((kept) => kept.model === change.model && kept.release === change.release)) return false;
        changes.push(change);
        return true;
      }),
  };
};
