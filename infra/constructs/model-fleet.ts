import { Duration } from 'aws-cdk-lib';
import { AdjustmentType } from 'aws-cdk-lib/aws-applicationautoscaling';
import type { IVpc } from 'aws-cdk-lib/aws-ec2';
import { Ec2Service, PlacementStrategy, type Cluster } from 'aws-cdk-lib/aws-ecs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { formatIssue } from '../../shared/catalog/cog-config-error.ts';
import { COG_KEYS } from '../../shared/catalog/cog-config.ts';
import { readCogFile } from '../../shared/adapters/cog-files.ts';
import type { ModelDefinition } from '../../shared/catalog/registry.ts';
import { FleetCapacity } from './fleet-capacity.ts';
import { backlogScalingSteps, checkFleetBounds } from './fleet-scaling.ts';
import { FleetTask, predictorFolderOf } from './fleet-task.ts';
import { bindWorker } from './process-bindings.ts';
import type { WaiterQueues } from './waiter-queues.ts';

export {
  predictorFolderOf,
  WORKER_BUILD_CONTEXT,
  WORKER_CALLBACK_PORT,
  WORKER_DOCKER_EXCLUDES,
  WORKER_DOCKERFILE,
} from './fleet-task.ts';

export interface ModelFleetProps {
  readonly model: ModelDefinition;
  readonly vpc: IVpc;
  /** The fleet's own cluster's name. */
  readonly clusterName: string;
  readonly queue: IQueue;
  readonly table: ITable;
  /** The worker stores large outputs here. */
  readonly bucket: IBucket;
  /** The worker queues the webhooks of the predictions it ends. */
  readonly webhookQueue: IQueue;
  /** The worker tells the waiters of the predictions it ends. */
  readonly waiterQueues: WaiterQueues;
  readonly stateMachine: IStateMachine;
  /** Override the registry's minimum warm tasks (CDK context `prognoz:minWarmTasks`). */
  readonly minWarmTasks?: number;
}

/**
 * One model's compute (architecture: Model fleets): its own cluster on EC2 capacity (the GPU-optimized AMI when the
 * model needs a GPU), a service of worker + model-server tasks, and scaling on the queue's
 * backlog, from zero when the model allows. The service's task count belongs to the scaler alone:
 * the template never sets it, so a deploy never resets a running fleet.
 */
export class ModelFleet extends Construct {
  public readonly service: Ec2Service;
  public readonly cluster: Cluster;
  public readonly task: FleetTask;
  public readonly capacity: FleetCapacity;

  constructor(scope: Construct, id: string, props: ModelFleetProps) {
    super(scope, id);
    const { model } = props;
    const fleet = model.fleet;
    const minWarm = props.minWarmTasks ?? fleet.minWarmTasks;
    checkFleetBounds({ minWarm, maxTasks: fleet.maxTasks, maxTasksCap: fleet.maxTasksCap });
    const steps = backlogScalingSteps({ maxTasksCap: fleet.maxTasksCap, backlogPerTask: fleet.backlogPerTask });
    const folder = predictorFolderOf(model);
    const { config: cog, issue } = readCogFile(folder);
    // A CUDA image on a fleet without GPUs would start and then fail in setup(), on every task.
    // The opposite is allowed: `gpu: false` only means no CUDA base image, and wheels that bring
    // their own CUDA libraries (PyTorch's) need nothing from the image but the driver, which the
    // NVIDIA runtime of the GPU AMI mounts into any container that reserves a GPU.
    if (cog.gpu && fleet.gpus === 0) {
      const where = issue(COG_KEYS.gpu, 'its predictor needs a GPU, but its fleet has gpus: 0');
      throw new Error(
        `${model.id}: ${formatIssue(where)}; give the fleet a GPU instance type and gpus >= 1 in models/manifest.json, or set gpu: false`,
      );
    }
    if (cog.concurrency !== model.predictor.concurrency) {
      const where = issue(COG_KEYS.concurrency, `the derived catalog says ${model.predictor.concurrency}`);
      throw new Error(`${model.id}: ${formatIssue(where)}; run \`npm run models\` to derive it again`);
    }
    // The backlog counts running jobs too: below what one task runs at once, the fleet would start
    // tasks for jobs a running task has free slots for.
    if (fleet.backlogPerTask < model.predictor.concurrency) {
      throw new Error(
        `${model.id}: its fleet's backlogPerTask (${fleet.backlogPerTask}) is less than the predictions one task runs at once (concurrency.max ${model.predictor.concurrency}); set backlogPerTask to at least ${model.predictor.concurrency} in models/manifest.json`,
      );
    }

    this.capacity = new FleetCapacity(this, 'Capacity', { model, vpc: props.vpc, clusterName: props.clusterName });
    this.cluster = this.capacity.cluster;
    this.task = new FleetTask(this, 'Task', { model });
    const { taskDefinition, worker } = this.task;
    // The task role is the worker's: the model server's entrypoint drops its credentials
    // (infra/cog/dockerfile.ts), and neither container reaches the instance's.
    const role = taskDefinition.taskRole;
    bindWorker(worker, role, props);
    // The worker protects its task from scale-in while it runs a prediction.
    this.cluster.grantTaskProtection(role);

    this.service = new Ec2Service(this, 'Service', {
      cluster: this.cluster,
      taskDefinition,
      // New tasks start beside the old ones (no ports to share on the bridge), and ECS waits for
      // a protected task's run to end before it replaces it.
      minHealthyPercent: 100,
      maxHealthyPercent: 200,
      placementStrategies: [PlacementStrategy.packedByMemory()],
      capacityProviderStrategies: [
        { capacityProvider: this.capacity.capacityProvider.capacityProviderName, weight: 1 },
      ],
      circuitBreaker: { enable: true, rollback: true },
    });
    this.capacity.placeAfterCapacity(this.service);

    // The alarm watches the queue, not the tasks, so it also scales up from zero.
    const backlog = new MathExpression({
      expression: 'visible + inFlight',
      usingMetrics: {
        visible: props.queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
        inFlight: props.queue.metricApproximateNumberOfMessagesNotVisible({ period: Duration.minutes(1) }),
      },
      label: `${model.id} backlog`,
      period: Duration.minutes(1),
    });
    // The bounds a first deploy registers. An operator moves them at run time, up to maxTasksCap;
    // CloudFormation registers them again only when the target changes in the template (these
    // values, or the context's minimum), which sets an operator's bounds back to these.
    const scaling = this.service.autoScaleTaskCount({ minCapacity: minWarm, maxCapacity: fleet.maxTasks });
    scaling.scaleOnMetric('ScaleOnBacklog', {
      metric: backlog,
      scalingSteps: steps,
      adjustmentType: AdjustmentType.EXACT_CAPACITY,
      cooldown: Duration.minutes(1),
      evaluationPeriods: 1,
    });
  }
}
