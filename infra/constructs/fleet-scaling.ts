import type { ScalingInterval } from 'aws-cdk-lib/aws-applicationautoscaling';

export interface BacklogScaling {
  /** Tasks kept with an empty queue. */
  readonly minWarm: number;
  readonly maxTasks: number;
  /** Jobs (waiting or running) per task before another task starts. */
  readonly backlogPerTask: number;
}

/**
 * The steps of a fleet's exact-capacity scaling on its backlog (jobs waiting + running): within
 * [minWarm, maxTasks], ceil(backlog / backlogPerTask) tasks.
 *
 * The two alarms CDK derives from the steps never overlap: the fleet shrinks to its minimum only
 * when the backlog is at most 0, and sizes itself to the backlog from 1 up. A backlog between 0
 * and 1 (a one-minute average of a queue that held a job part of the minute) changes nothing, so
 * no value of the metric can put both alarms in ALARM and make the fleet flap.
 */
export const backlogScalingSteps = ({ minWarm, maxTasks, backlogPerTask }: BacklogScaling): ScalingInterval[] => {
  if (!Number.isInteger(maxTasks) || maxTasks < 1) throw new Error('maxTasks must be an integer of at least 1');
  if (!Number.isInteger(backlogPerTask) || backlogPerTask < 1)
    throw new Error('backlogPerTask must be an integer of at least 1');
  if (!Number.isInteger(minWarm) || minWarm < 0 || minWarm > maxTasks)
    throw new Error('minWarmTasks must be an integer within 0..maxTasks');
  const steps: ScalingInterval[] = [{ upper: 0, change: minWarm }];
  for (let tasks = 1; tasks <= maxTasks; tasks++) {
    steps.push({ lower: (tasks - 1) * backlogPerTask + 1, change: Math.max(tasks, minWarm) });
  }
  return steps;
};
