import { AutoScalingGroup } from 'aws-cdk-lib/aws-autoscaling';
import {
  BlockDeviceVolume,
  EbsDeviceVolumeType,
  InstanceType,
  LaunchTemplate,
  SecurityGroup,
  SubnetType,
  UserData,
  type IVpc,
} from 'aws-cdk-lib/aws-ec2';
import {
  type AddAutoScalingGroupCapacityOptions,
  AmiHardwareType,
  AsgCapacityProvider,
  Cluster,
  ContainerInsights,
  EcsOptimizedImage,
} from 'aws-cdk-lib/aws-ecs';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Duration } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { ModelDefinition } from '../../shared/catalog/registry.ts';

/** The address of the instance metadata service, which no container may reach. */
export const INSTANCE_METADATA_ADDRESS = '169.254.169.254';

/**
 * Root volumes: the ECS-optimized AMIs' 30 GiB holds a CPU model's image; a GPU model's CUDA
 * image and its weights take several times more.
 */
export const ROOT_VOLUME_GIB = { cpu: 30, gpu: 100 } as const;

/**
 * The instance's boot script, after CDK's line that joins the cluster. Containers run on Docker's
 * bridge, so the host's firewall can tell them from the host: a rule in DOCKER-USER (the chain
 * Docker evaluates before its own and never rewrites), installed each time Docker starts, drops
 * their packets to the instance metadata service — with the hop limit of 1 on IMDSv2 tokens, a
 * second lock on the instance role's credentials. The ECS agent (host network) still reaches it,
 * and task-role credentials stay served to the worker at the agent's own address.
 */
export const FLEET_BOOT_COMMANDS: readonly string[] = [
  'echo ECS_ENABLE_TASK_IAM_ROLE=true >> /etc/ecs/ecs.config',
  'mkdir -p /etc/systemd/system/docker.service.d',
  [
    "cat > /etc/systemd/system/docker.service.d/prognoz-block-imds.conf <<'EOF'",
    '[Service]',
    `ExecStartPost=/usr/sbin/iptables --insert DOCKER-USER 1 --in-interface docker+ --destination ${INSTANCE_METADATA_ADDRESS}/32 --jump DROP`,
    'EOF',
  ].join('\n'),
  'systemctl daemon-reload',
];

export interface FleetCapacityProps {
  readonly model: ModelDefinition;
  readonly vpc: IVpc;
  /** The cluster's name: the sweeper finds a fleet's cluster by it. */
  readonly clusterName: string;
}

/**
 * A model's own ECS cluster and the EC2 capacity it scales: instances in public subnets (no NAT
 * gateway to pay for while the fleet is at zero), no inbound traffic, encrypted root volumes, and
 * a capacity provider that never terminates an instance running a task.
 */
export class FleetCapacity extends Construct {
  public readonly cluster: Cluster;
  public readonly autoScalingGroup: AutoScalingGroup;
  public readonly capacityProvider: AsgCapacityProvider;

  constructor(scope: Construct, id: string, props: FleetCapacityProps) {
    super(scope, id);
    const { model } = props;
    const gpu = model.fleet.gpus > 0;
    this.cluster = new Cluster(this, 'Cluster', {
      vpc: props.vpc,
      clusterName: props.clusterName,
      containerInsightsV2: ContainerInsights.ENABLED,
    });
    const securityGroup = new SecurityGroup(this, 'Instances', {
      vpc: props.vpc,
      description: `${model.id} model fleet: no inbound traffic, outbound to AWS APIs and file inputs`,
      allowAllOutbound: true,
    });
    const userData = UserData.forLinux();
    this.autoScalingGroup = new AutoScalingGroup(this, 'Capacity', {
      vpc: props.vpc,
      vpcSubnets: { subnetType: SubnetType.PUBLIC },
      launchTemplate: new LaunchTemplate(this, 'LaunchTemplate', {
        instanceType: new InstanceType(model.fleet.instanceType),
        machineImage: EcsOptimizedImage.amazonLinux2023(gpu ? AmiHardwareType.GPU : AmiHardwareType.STANDARD),
        userData,
        securityGroup,
        associatePublicIpAddress: true,
        requireImdsv2: true,
        // A token's response dies one hop out: containers behind Docker's bridge never get one.
        httpPutResponseHopLimit: 1,
        blockDevices: [
          {
            deviceName: '/dev/xvda',
            volume: BlockDeviceVolume.ebs(gpu ? ROOT_VOLUME_GIB.gpu : ROOT_VOLUME_GIB.cpu, {
              encrypted: true,
              volumeType: EbsDeviceVolumeType.GP3,
              deleteOnTermination: true,
            }),
          },
        ],
        role: new Role(this, 'InstanceRole', { assumedBy: new ServicePrincipal('ec2.amazonaws.com') }),
      }),
      minCapacity: 0,
      // Worst case one task an instance (a GPU each); smaller tasks share instances. As many as the
      // cap, not the deployed maximum: an operator's raised maximum then needs no deploy, and the
      // capacity provider still launches only the instances the tasks ask for.
      maxCapacity: model.fleet.maxTasksCap,
    });
    this.capacityProvider = new AsgCapacityProvider(this, 'CapacityProvider', {
      autoScalingGroup: this.autoScalingGroup,
      // ECS never scales in an instance that runs a task; with the worker's task protection, a
      // running prediction is never cut off by scale-in.
      enableManagedTerminationProtection: true,
      // ECS drains instances itself, so no Lambda drain hook (that would be a Python function).
      enableManagedDraining: true,
      targetCapacityPercent: 100,
      instanceWarmupPeriod: Duration.minutes(gpu ? 5 : 3).toSeconds(),
    });
    // `taskDrainTime` is still read by aws-cdk-lib (0 skips the hook) though no longer in its types.
    const noDrainHook: AddAutoScalingGroupCapacityOptions & { taskDrainTime: Duration } = {
      taskDrainTime: Duration.seconds(0),
    };
    this.cluster.addAsgCapacityProvider(this.capacityProvider, noDrainHook);
    userData.addCommands(...FLEET_BOOT_COMMANDS);
  }

  /**
   * Makes a service wait for the cluster's capacity provider association, which CDK adds to the
   * cluster only when the app is synthesized: a dependency on the cluster's whole subtree takes
   * it in, so a first deploy cannot create the service before its capacity provider is
   * associated, nor a delete remove the association first (aws/containers-roadmap#631).
   */
  public placeAfterCapacity(service: Construct): void {
    service.node.addDependency(this.cluster);
  }
}
