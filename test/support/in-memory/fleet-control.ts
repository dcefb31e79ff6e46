import type { Fleet, FleetDirectory, FleetServices, JobQueues } from '../../../shared/ports/fleet-control.ts';
import { answer } from './answer.ts';

/** The fleets, their queues and their services in memory: the directory lists what `add` added. */
export const inMemoryFleets = (): {
  readonly directory: FleetDirectory;
  readonly queues: JobQueues;
  readonly services: FleetServices;
  add(fleet: Fleet, state?: { readonly waitingJobs?: number; readonly desiredTasks?: number }): void;
  setWaiting(queueUrl: string, jobs: number): void;
} => {
  const fleets: Fleet[] = [];
  const waiting = new Map<string, number>();
  const desired = new Map<string, number>();
  const serviceKey = (fleet: Pick<Fleet, 'cluster' | 'service'>) => `${fleet.cluster}/${fleet.service}`;
  return {
    directory: { fleets: () => answer(() => [...fleets]) },
    queues: {
      waitingJobs: (queueUrl) =>
        answer(() => {
          const jobs = waiting.get(queueUrl);
          if (jobs === undefined) throw new Error(`no queue ${queueUrl}`);
          return jobs;
        }),
    },
    services: {
      desiredTasks: (fleet) =>
        answer(() => {
          const tasks = desired.get(serviceKey(fleet));
          if (tasks === undefined) throw new Error(`no service ${fleet.service} in ${fleet.cluster}`);
          return tasks;
        }),
      setDesiredTasks: (fleet, tasks) =>
        answer(() => {
          if (!desired.has(serviceKey(fleet))) throw new Error(`no service ${fleet.service} in ${fleet.cluster}`);
          desired.set(serviceKey(fleet), tasks);
        }),
    },
    add: (fleet, state = {}) => {
      fleets.push(fleet);
      waiting.set(fleet.queueUrl, state.waitingJobs ?? 0);
      desired.set(serviceKey(fleet), state.desiredTasks ?? 0);
    },
    setWaiting: (queueUrl, jobs) => waiting.set(queueUrl, jobs),
  };
};
