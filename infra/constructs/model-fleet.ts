import { Duration } from 'aws-cdk-lib';
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
  type Cluster,
} from 'aws-cdk-lib/aws-ecs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { MathExpression } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { ModelDefinition } from '../../shared/models/registry.ts';
import { REPO_ROOT } from './prognoz-function.ts';

export const WORKER_DOCKERFILE = 'worker/Dockerfile';
const MODEL_PORT = 5000;

/** Files never sent to a Docker build (the context is the repository root). */
const DOCKER_EXCLUDES = ['node_modules', 'cdk.out', '.git', '.venv', 'local', 'test', 'bench', '**/__pycache__', '**/.pytest_cache'];

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
    if (minWarm < 0 || minWarm > fleet.maxTasks) throw new Error(`${model.id}: minWarmTasks must be within 0..maxTasks`);
    if (fleet.maxTasks < 1 || fleet.backlogPerTask < 1) throw new Error(`${model.id}: maxTasks and backlogPerTask must be at least 1`);

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
        machineImage: EcsOptimizedImage.amazonLinux2023(fleet.gpus > 0 ? AmiHardwareType.GPU : AmiHardwareType.STANDARD),
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
    const noDrainHook: AddAutoScalingGroupCapacityOptions & { taskDrainTime: Duration } = { taskDrainTime: Duration.seconds(0) };
    props.cluster.addAsgCapacityProvider(capacityProvider, noDrainHook);

    this.taskDefinition = new Ec2TaskDefinition(this, 'Task', { networkMode: NetworkMode.HOST });
    const logging = (prefix: string) => LogDrivers.awsLogs({ streamPrefix: prefix, logRetention: RetentionDays.ONE_MONTH });
    const modelServer = this.taskDefinition.addContainer('ModelServer', {
      image: ContainerImage.fromAsset(REPO_ROOT, { file: fleet.dockerfile, exclude: DOCKER_EXCLUDES, platform: Platform.LINUX_AMD64 }),
      memoryReservationMiB: fleet.memoryMiB,
      ...(fleet.gpus > 0 ? { gpuCount: fleet.gpus } : {}),
      environment: { PORT: String(MODEL_PORT), HOST: '127.0.0.1' },
      healthCheck: {
        command: ['CMD-SHELL', `python -c "import urllib.request,json,sys; s=json.load(urllib.request.urlopen('http://127.0.0.1:${MODEL_PORT}/health-check'))['status']; sys.exit(0 if s in ('READY','BUSY') else 1)"`],
        interval: Duration.seconds(15),
        startPeriod: Duration.seconds(300),
        retries: 3,
      },
      logging: logging('model'),
    });
    const worker = this.taskDefinition.addContainer('Worker', {
      image: ContainerImage.fromAsset(REPO_ROOT, { file: WORKER_DOCKERFILE, exclude: DOCKER_EXCLUDES, platform: Platform.LINUX_AMD64 }),
      memoryReservationMiB: 256,
      environment: {
        PROGNOZ_TABLE_NAME: props.table.tableName,
        PROGNOZ_MODEL_ID: model.id,
        PROGNOZ_QUEUE_URL: props.queue.queueUrl,
        PROGNOZ_WEBHOOK_QUEUE_URL: props.webhookQueue.queueUrl,
        PROGNOZ_OUTPUT_BUCKET: props.bucket.bucketName,
        PROGNOZ_MODEL_URL: `http://127.0.0.1:${MODEL_PORT}`,
      },
      logging: logging('worker'),
      // ECS stops the worker first and gives it time to finish its job before the model goes;
      // a job still running then is run again elsewhere once its lease runs out.
      stopTimeout: Duration.seconds(120),
    });
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

