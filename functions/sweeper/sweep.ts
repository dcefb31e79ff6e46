import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { processSqsBatch } from '../sqs-batch.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import { sqsEndingInboxes } from '../../shared/adapters/ending-notices.ts';
import { endingWiring } from '../../shared/adapters/ending-wiring.ts';
import { ssmFleetDirectory } from '../../shared/adapters/ssm-fleet-control.ts';
import { ecsFleetServices } from '../../shared/adapters/ecs-fleet-control.ts';
import { sqsJobQueues } from '../../shared/adapters/sqs-fleet-control.ts';
import { sfnWorkflowClient } from '../../shared/adapters/workflow-client.ts';
import { SWEEPER_ENV, sweeperConfigFromEnv, type SweeperConfig } from '../../shared/config/sweeper.ts';
import { systemClock, type Clock } from '../../shared/domain/clock.ts';
import type { ModelCatalog } from '../../shared/catalog/model-catalog.ts';
import type { EndingInboxes } from '../../shared/ports/ending-notices.ts';
import type { FleetDirectory } from '../../shared/ports/fleet-control.ts';
import { predictionIdSchema } from '../../shared/domain/ids.ts';
import {
  endDeadJob,
  reconcileExecution,
  removeExpiredData,
  removeOldInboxes,
  sweep,
  type SweepDeps,
} from '../../shared/use-cases/sweep.ts';
import { nudgeFleets, type NudgeDeps } from '../../shared/use-cases/nudge-fleets.ts';
import { dispatchMessage } from '../../shared/workflow/messages.ts';
import { serviceLogger } from '../service-logger.ts';
import { lambdaEntry, once } from '../lambda-entry.ts';
import { processModelCatalog } from '../model-catalog.ts';

const logger = serviceLogger('sweeper');

/** The schedule's tick (EventBridge, every minute; a timer in the local runtime). */
const scheduled = z.object({ source: z.literal('aws.events'), 'detail-type': z.literal('Scheduled Event') });
/** An execution that ended without success, as EventBridge reports it. */
const executionEnded = z.object({
  source: z.literal('aws.states'),
  'detail-type': z.literal('Step Functions Execution Status Change'),
  // An execution is named by its prediction's id.
  detail: z.object({ name: predictionIdSchema, status: z.string() }),
});
/** Jobs a model queue dead-lettered. */
const deadJobs = z.object({
  Records: z.array(
    z.object({
      messageId: z.string(),
      body: z.string(),
      attributes: z.object({ ApproximateReceiveCount: z.string().optional() }),
    }),
  ),
});

/** Where the fleets are listed and what wakes them. */
interface Waking {
  readonly directory: FleetDirectory;
  readonly deps: NudgeDeps;
}

interface Sweeper {
  readonly deps: SweepDeps;
  /** The waiter queues of the deployment's synchronous waits. */
  readonly endingInboxes: EndingInboxes;
  /** Null where the stack lists no fleets (the local runtime, whose workers always run). */
  readonly waking: Waking | null;
}

const sweeperOf = (config: SweeperConfig, clock: Clock, catalog: ModelCatalog): Sweeper => {
  if (config.fleetsPath === null)
    logger.info(
      `${SWEEPER_ENV.fleetsPath} is not set: no fleet is woken (in the local runtime, each fleet's scaler watches its own queue)`,
    );
  return {
    deps: {
      catalog,
      ...endingWiring(config, clock, (message, fields) => logger.warn(message, fields)),
      workflow: sfnWorkflowClient(),
      stateMachineArnOf: config.stateMachineArnOf,
      clock,
      sleep: (ms) => sleep(ms),
    },
    endingInboxes: sqsEndingInboxes(config.waiterQueuePrefix),
    waking:
      config.fleetsPath === null
        ? null
        : {
            directory: ssmFleetDirectory(config.fleetsPath),
            deps: { queues: sqsJobQueues(), services: ecsFleetServices() },
          },
  };
};

/** Wakes the fleets at zero that have jobs waiting; whatever fails is logged, and the sweep goes on. */
const wakeWaitingFleets = async (waking: Waking | null): Promise<void> => {
  if (!waking) return;
  try {
    const report = await nudgeFleets(waking.deps, await waking.directory.fleets(), (model, error) =>
      logger.error('waking a fleet failed', { model, error: String(error) }),
    );
    const woken = Object.keys(report).filter((model) => report[model] === 'nudged');
    if (woken.length > 0) logger.info('woke fleets at zero tasks with jobs waiting', { models: woken });
  } catch (error) {
    logger.error('the fleets could not be woken', { error: String(error) });
  }
};

/** Removes the old waiter queues; a failure is logged, and the sweep goes on. */
const removeOldWaiterQueues = async ({ deps, endingInboxes }: Sweeper): Promise<void> => {
  try {
    const removed = await removeOldInboxes({ endingInboxes, clock: deps.clock });
    if (removed > 0) logger.info('removed the waiter queues of processes that have ended', { removed });
  } catch (error) {
    logger.error('the old waiter queues could not be removed', { error: String(error) });
  }
};

const handle = async (sweeper: Sweeper, event: unknown): Promise<SQSBatchResponse | undefined> => {
  const { deps, waking } = sweeper;
  if (scheduled.safeParse(event).success) {
    await wakeWaitingFleets(waking);
    const report = await sweep(deps, 500, (id, error) =>
      logger.error('sweeping a prediction failed', { predictionId: id, error: String(error) }),
    );
    if (report.looked > 0) logger.info('swept', { ...report });
    const removed = await removeExpiredData(deps);
    if (removed > 0) logger.info('removed the data of predictions past their retention period', { removed });
    await removeOldWaiterQueues(sweeper);
    return undefined;
  }
  const ended = executionEnded.safeParse(event);
  if (ended.success) {
    const action = await reconcileExecution(deps, ended.data.detail.name, ended.data.detail.status);
    logger.info('execution ended', { predictionId: ended.data.detail.name, status: ended.data.detail.status, action });
    return undefined;
  }
  return processSqsBatch(deadJobs.parse(event) as SQSEvent, async (record, attempt) => {
    try {
      const message = dispatchMessage.parse(JSON.parse(record.body));
      const action = await endDeadJob(deps, message.predictionId, attempt);
      logger.warn('a dead-lettered job', { predictionId: message.predictionId, action });
    } catch (error) {
      logger.error('a dead-lettered job could not be ended', { messageId: record.messageId, error: String(error) });
      throw error;
    }
  });
};

/**
 * The sweeper: on its schedule it wakes the fleets at zero that have jobs waiting, and moves on
 * every prediction whose sweep deadline passed; told that an execution ended without success, it
 * ends the prediction behind it; given the jobs a model queue dead-lettered, it ends their
 * predictions. Nothing stays stuck.
 */
export const handler = lambdaEntry((env) => {
  const sweeper = once(() => {
    const catalog = processModelCatalog();
    return sweeperOf(sweeperConfigFromEnv(env, catalog), systemClock, catalog);
  });
  return (event: unknown): Promise<SQSBatchResponse | undefined> => handle(sweeper(), event);
});
