import path from 'node:path';
import { Duration, SymlinkFollowMode } from 'aws-cdk-lib';
import { AdjustmentType, type ScalingInterval } from 'aws-cdk-lib/aws-applicationautoscaling';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { AutoScalingGroup } from 'aws-cdk-lib/aws-autoscaling';
import { InstanceType, LaunchTemplate, SecurityGroup, SubnetType, UserData, type IVpc } from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import {
  AmiHardwareType,
  type AddAutoScalingGroupCapacityOptions,
  AsgCapacityProvider,
  ContainerDependencyCondition,
  ContainerImage,
  Ec2Service,
  Ec2TaskDefinition,
  EcsOptimizedImage,
  LogDrivers,
  NetworkMode,
  Scope,
  type Cluster,
} from 'aws-cdk-lib/aws-ecs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { readCogConfig } from '../../shared/models/cog-config.ts';
import type { ModelDefinition } from '../../shared/models/registry.ts';
import { MODEL_INPUTS_DIR, MODEL_PORT, PREDICTOR_EXCLUDES, writeCogDockerfile } from '../cog/dockerfile.ts';
import { REPO_ROOT } from './prognoz-function.ts';

export const WORKER_DOCKERFILE = 'worker/Dockerfile';
/** Where the worker listens for coglet's webhooks (host network: on 127.0.0.1). */
export const WORKER_CALLBACK_PORT = 5001;

/**
 * Files never sent to the worker's build (the context is the repository root). Of the models
 * only the catalog is bundled into the worker (shared/models/registry.ts imports it): their
 * predictor folders, weights and virtual environments stay out, and a change to a model's code
 * does not rebuild the worker.
 */
export const WORKER_DOCKER_EXCLUDES: readonly string[] = [
  'node_modules',
  'cdk.out',
  '.git',
  '.venv',
  'local',
  'test',
  'bench',
  'models/*',
  '!models/manifest.json',
  '!models/schemas.json',
  '**/.cog',
  '**/__pycache__',
  '**/.pytest_cache',
];

/** A predictor folder as an absolute path: a relative one is relative to the repository root. */
export const predictorFolderOf = (model: Pick<ModelDefinition, 'predictor'>): string =>
  path.resolve(REPO_ROOT, model.predictor.folder);

export interface ModelFleetProps {
  readonly model: ModelDefinition;
  readonly vpc: IVpc;
  readonly cluster: Cluster;
  readonly queue: IQueue;
  readonly table: ITable;
  /** The worker stores large outputs here. */
  readonly bucket: IBucket;
  /** The worker queues the webhooks of the predictions it ends. */
  readonly webhookQueue: IQueue;
  readonly stateMachine: IStateMachine;
  /** Override the registry's minimum warm tasks (e.g. 0 in a test account). */
  readonly minWarmTasks?: number;
}

/**
 * One model's compute: EC2 capacity (GPU-optimized AMI when the model needs a GPU), a task of two
 * containers — the worker and the model server, sharing the host network so the worker reaches
 * the model on localhost — and scaling on the queue's backlog, from zero when the model allows.
 */
export class ModelFleet extends Construct {
  public readonly service: Ec2Service;
  public readonly taskDefinition: Ec2TaskDefinition;
  public readonly autoScalingGroup: AutoScalingGroup;

  constructor(scope: Construct, id: string, props: ModelFleetProps) {
    super(scope, id);
    const { model } = props;
    const fleet = model.fleet;
    const minWarm = props.minWarmTasks ?? fleet.minWarmTasks;
    if (minWarm < 0 || minWarm > fleet.maxTasks)
      throw new Error(`${model.id}: minWarmTasks must be within 0..maxTasks`);
    if (fleet.maxTasks < 1 || fleet.backlogPerTask < 1)
      throw new Error(`${model.id}: maxTasks and backlogPerTask must be at least 1`);
    const folder = predictorFolderOf(model);
    const cog = readCogConfig(folder);
    // A CUDA image on a fleet without GPUs would start and then fail in setup(), on every task.
    // The opposite is allowed: `gpu: false` only means no CUDA base image, and wheels that bring
    // their own CUDA libraries (PyTorch's) need nothing from the image but the driver, which the
    // NVIDIA runtime of the GPU AMI mounts into any container that reserves a GPU.
    if (cog.gpu && fleet.gpus === 0) {
      throw new Error(
        `${model.id}: its predictor (${path.join(folder, 'cog.yaml')}) says gpu: true, but its fleet has gpus: 0; give the fleet a GPU instance type and gpus >= 1 in models/manifest.json, or set gpu: false`,
      );
    }
    if (cog.concurrency !== model.predictor.concurrency) {
      throw new Error(
        `${model.id}: cog.yaml says concurrency.max ${cog.concurrency}, the derived catalog ${model.predictor.concurrency}; run \`npm run models\` to derive it again`,
      );
    }

    const securityGroup = new SecurityGroup(this, 'Instances', {
      vpc: props.vpc,
      description: `${model.id} model fleet: no inbound traffic, outbound to AWS APIs and file inputs`,
      allowAllOutbound: true,
    });
    this.autoScalingGroup = new AutoScalingGroup(this, 'Capacity', {
      vpc: props.vpc,
      vpcSubnets: { subnetType: SubnetType.PUBLIC },
      launchTemplate: new LaunchTemplate(this, 'LaunchTemplate', {
        instanceType: new InstanceType(fleet.instanceType),
        machineImage: EcsOptimizedImage.amazonLinux2023(
          fleet.gpus > 0 ? AmiHardwareType.GPU : AmiHardwareType.STANDARD,
        ),
        userData: UserData.forLinux(),
        securityGroup,
        associatePublicIpAddress: true,
        requireImdsv2: true,
        role: new Role(this, 'InstanceRole', { assumedBy: new ServicePrincipal('ec2.amazonaws.com') }),
      }),
      minCapacity: 0,
      maxCapacity: fleet.maxTasks,
    });
    const capacityProvider = new AsgCapacityProvider(this, 'CapacityProvider', {
      autoScalingGroup: this.autoScalingGroup,
      enableManagedTerminationProtection: false,
      // ECS drains instances itself, so no Lambda drain hook (that would be a Python function).
      enableManagedDraining: true,
      targetCapacityPercent: 100,
    });
    // `taskDrainTime` is still read by aws-cdk-lib (0 skips the hook) though no longer in its types.
    const noDrainHook: AddAutoScalingGroupCapacityOptions & { taskDrainTime: Duration } = {
      taskDrainTime: Duration.seconds(0),
    };
    props.cluster.addAsgCapacityProvider(capacityProvider, noDrainHook);

    this.taskDefinition = new Ec2TaskDefinition(this, 'Task', { networkMode: NetworkMode.HOST });
    // File inputs: the worker downloads them here and the model opens them by path, so both
    // containers mount the task's own Docker volume at the same path. Docker creates it empty for
    // the task (copying the mount point's mode from the first image to mount it: 1777 in both)
    // and removes it with the task.
    const inputs = 'inputs';
    this.taskDefinition.addVolume({ name: inputs, dockerVolumeConfiguration: { scope: Scope.TASK, driver: 'local' } });
    const inputsMount = { sourceVolume: inputs, containerPath: MODEL_INPUTS_DIR, readOnly: false };

    const logging = (prefix: string) =>
      LogDrivers.awsLogs({ streamPrefix: prefix, logRetention: RetentionDays.ONE_MONTH });
    // Links are followed: the build context has the files a predictor links to, as in another
    // folder (models/whisper-large-v3-turbo shares models/transcribe's code that way).
    const image = ContainerImage.fromAsset(folder, {
      file: writeCogDockerfile(folder),
      exclude: [...PREDICTOR_EXCLUDES],
      followSymlinks: SymlinkFollowMode.ALWAYS,
      platform: Platform.LINUX_AMD64,
    });
    const modelServer = this.taskDefinition.addContainer('ModelServer', {
      image,
      memoryReservationMiB: fleet.memoryMiB,
      ...(fleet.gpus > 0 ? { gpuCount: fleet.gpus } : {}),
      environment: {
        PORT: String(MODEL_PORT),
        COG_MAX_CONCURRENCY: String(model.predictor.concurrency),
        // CUDA from the driver for any image, the CUDA base's or not (`gpu: false` with CUDA wheels).
        ...(fleet.gpus > 0 ? { NVIDIA_DRIVER_CAPABILITIES: 'compute,utility' } : {}),
      },
      healthCheck: {
        // coglet answers READY when setup() is done and BUSY while it runs all it takes at once.
        command: [
          'CMD-SHELL',
          `python -c "import urllib.request,json,sys; s=json.load(urllib.request.urlopen('http://127.0.0.1:${MODEL_PORT}/health-check'))['status']; sys.exit(0 if s in ('READY','BUSY') else 1)"`,
        ],
        interval: Duration.seconds(15),
        startPeriod: Duration.seconds(300),
        retries: 3,
      },
      logging: logging('model'),
    });
    modelServer.addMountPoints(inputsMount);
    const worker = this.taskDefinition.addContainer('Worker', {
      image: ContainerImage.fromAsset(REPO_ROOT, {
        file: WORKER_DOCKERFILE,
        exclude: [...WORKER_DOCKER_EXCLUDES],
        platform: Platform.LINUX_AMD64,
      }),
      memoryReservationMiB: 256,
      environment: {
        PROGNOZ_TABLE_NAME: props.table.tableName,
        PROGNOZ_MODEL_ID: model.id,
        PROGNOZ_QUEUE_URL: props.queue.queueUrl,
        PROGNOZ_WEBHOOK_QUEUE_URL: props.webhookQueue.queueUrl,
        PROGNOZ_OUTPUT_BUCKET: props.bucket.bucketName,
        PROGNOZ_MODEL_URL: `http://127.0.0.1:${MODEL_PORT}`,
        PROGNOZ_CALLBACK_PORT: String(WORKER_CALLBACK_PORT),
        PROGNOZ_INPUTS_DIR: MODEL_INPUTS_DIR,
      },
      logging: logging('worker'),
      // ECS stops the worker first and gives it time to finish its job before the model goes;
      // a job still running then is run again elsewhere once its lease runs out.
      stopTimeout: Duration.seconds(120),
    });
    worker.addMountPoints(inputsMount);
    worker.addContainerDependencies({ container: modelServer, condition: ContainerDependencyCondition.START });

    props.queue.grantConsumeMessages(this.taskDefinition.taskRole);
    props.table.grantReadWriteData(this.taskDefinition.taskRole);
    props.bucket.grantPut(this.taskDefinition.taskRole);
    props.webhookQueue.grantSendMessages(this.taskDefinition.taskRole);
    props.stateMachine.grantTaskResponse(this.taskDefinition.taskRole);

    this.service = new Ec2Service(this, 'Service', {
      cluster: props.cluster,
      taskDefinition: this.taskDefinition,
      desiredCount: minWarm,
      minHealthyPercent: 0,
      maxHealthyPercent: 100,
      capacityProviderStrategies: [{ capacityProvider: capacityProvider.capacityProviderName, weight: 1 }],
      circuitBreaker: { enable: true, rollback: true },
    });

    // Desired tasks = ceil(backlog / backlogPerTask), within [minWarm, maxTasks]. The alarm
    // watches the queue, not the tasks, so it also scales up from zero.
    const backlog = new MathExpression({
      expression: 'visible + inFlight',
      usingMetrics: {
        visible: props.queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
        inFlight: props.queue.metricApproximateNumberOfMessagesNotVisible({ period: Duration.minutes(1) }),
      },
      label: `${model.id} backlog`,
      period: Duration.minutes(1),
    });
    const scaling = this.service.autoScaleTaskCount({ minCapacity: minWarm, maxCapacity: fleet.maxTasks });
    const steps: ScalingInterval[] = [{ upper: 1, change: minWarm }];
    for (let tasks = 1; tasks <= fleet.maxTasks; tasks++) {
      steps.push({ lower: (tasks - 1) * fleet.backlogPerTask + 1, change: Math.max(tasks, minWarm) });
    }
    scaling.scaleOnMetric('ScaleOnBacklog', {
      metric: backlog,
      scalingSteps: steps,
      adjustmentType: AdjustmentType.EXACT_CAPACITY,
      cooldown: Duration.minutes(1),
      evaluationPeriods: 1,
    });
  }
}
