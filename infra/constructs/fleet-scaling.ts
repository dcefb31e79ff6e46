import type { ScalingInterval } from 'aws-cdk-lib/aws-applicationautoscaling';

/** The bounds a fleet's scalable target is first deployed with, and how far an operator may raise them. */
export interface DeployedFleetBounds {
  /** Tasks kept with an empty queue (the target's MinCapacity as deployed). */
  readonly minWarm: number;
  /** The target's MaxCapacity as deployed. */
  readonly maxTasks: number;
  /** The most an operator may raise MaxCapacity to at run time. */
  readonly maxTasksCap: number;
}

export interface BacklogScaling {
  readonly maxTasksCap: number;
  /** Jobs (waiting or running) per task before another task starts. */
  readonly backlogPerTask: number;
}

/**
 * Application Auto Scaling's default quota of step adjustments in one step scaling policy. The
 * steps above the threshold (one per task, up to the cap) make one policy, so a cap past it
 * would fail the deploy unless the quota is raised.
 */
export const MAX_STEP_ADJUSTMENTS = 20;

/** Refuses bounds the scalable target would not take: 0 ≤ minWarm ≤ maxTasks ≤ maxTasksCap. */
export const checkFleetBounds = ({ minWarm, maxTasks, maxTasksCap }: DeployedFleetBounds): void => {
  if (!Number.isInteger(maxTasks) || maxTasks < 1) throw new Error('maxTasks must be an integer of at least 1');
  if (!Number.isInteger(maxTasksCap) || maxTasksCap < maxTasks)
    throw new Error('maxTasksCap must be an integer of at least maxTasks');
  if (!Number.isInteger(minWarm) || minWarm < 0 || minWarm > maxTasks)
    throw new Error('minWarmTasks must be an integer within 0..maxTasks');
};

/**
 * The steps of a fleet's exact-capacity scaling on its backlog (jobs waiting + running):
 * ceil(backlog / backlogPerTask) tasks, from 0 up to the cap.
 *
 * The steps hold neither the minimum nor the maximum: an operator changes both at run time
 * (RegisterScalableTarget), and Application Auto Scaling clamps every step's exact capacity into
 * the scalable target's [MinCapacity, MaxCapacity] as they are then. Steps that reach the cap
 * keep a raised maximum reachable without a deploy; a step of 0 leaves the fleet at its minimum.
 *
 * The two alarms CDK derives from the steps never overlap: the fleet shrinks to its minimum only
 * when the backlog is at most 0, and sizes itself to the backlog from 1 up. A backlog between 0
 * and 1 (a one-minute average of a queue that held a job part of the minute) changes nothing, so
 * no value of the metric can put both alarms in ALARM and make the fleet flap.
 */
export const backlogScalingSteps = ({ maxTasksCap, backlogPerTask }: BacklogScaling): ScalingInterval[] => {
  if (!Number.isInteger(maxTasksCap) || maxTasksCap < 1)
    throw new Error('maxTasksCap must be an integer of at least 1');
  if (maxTasksCap > MAX_STEP_ADJUSTMENTS)
    throw new Error(
      `maxTasksCap must be at most ${MAX_STEP_ADJUSTMENTS}: one step a task, and Application Auto Scaling allows ${MAX_STEP_ADJUSTMENTS} steps in a policy by default`,
    );
  if (!Number.isInteger(backlogPerTask) || backlogPerTask < 1)
    throw new Error('backlogPerTask must be an integer of at least 1');
  const steps: ScalingInterval[] = [{ upper: 0, change: 0 }];
  for (let tasks = 1; tasks <= maxTasksCap; tasks++) {
    steps.push({ lower: (tasks - 1) * backlogPerTask + 1, change: tasks });
  }
  return steps;
};
