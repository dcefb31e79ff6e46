import path from 'node:path';
import { Duration, IgnoreMode, SymlinkFollowMode } from 'aws-cdk-lib';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import {
  ContainerDependencyCondition,
  ContainerImage,
  Ec2TaskDefinition,
  LogDrivers,
  NetworkMode,
  Scope,
  type CfnTaskDefinition,
  type ContainerDefinition,
} from 'aws-cdk-lib/aws-ecs';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { WORKER_ENV } from '../../shared/config/worker.ts';
import type { ModelDefinition } from '../../shared/catalog/registry.ts';
import { MODEL_INPUTS_DIR, MODEL_PORT, PREDICTOR_EXCLUDES, writeCogDockerfile } from '../cog/dockerfile.ts';
import { keepRunsMinutes, MODEL_ENTRYPOINT_ENV } from '../cog/model-entrypoint.ts';
import { WORKER_CONTAINER } from './container-names.ts';
import { tag } from './metadata.ts';
import { REPO_ROOT } from './prognoz-function.ts';

export const WORKER_DOCKERFILE = 'worker/Dockerfile';
/** Where the worker receives coglet's webhooks, on its own container's bridge address. */
export const WORKER_CALLBACK_PORT = 5001;
/** The name the worker reaches its model server by (an ECS link on Docker's bridge). */
export const MODEL_LINK_ALIAS = 'model';
/**
 * After SIGTERM the worker takes no new job and gives a running one this long to end; then it
 * hands it back to the queue for another task. ECS waits a little longer before SIGKILL.
 */
export const WORKER_DRAIN_SECONDS = 100;
export const WORKER_STOP_TIMEOUT_SECONDS = WORKER_DRAIN_SECONDS + 20;
/** The shortest a container must have run before ECS restarts it in place (ECS's minimum). */
export const RESTART_ATTEMPT_PERIOD = Duration.seconds(60);

/**
 * The worker image's build context, the repository root, reduced to what its Dockerfile copies:
 * everything else is excluded (an allow-list), so local state — `.prognoz/`'s environments and
 * weights, test output, a model's folder — never changes the image or its hash, and a deploy
 * after a local run does not roll every fleet.
 */
export const WORKER_BUILD_CONTEXT: readonly string[] = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'shared',
  'worker',
  'models/manifest.json',
  'models/schemas.json',
];

/** The allow-list as Docker's ignore rules (what `.dockerignore` at the root says too). */
export const WORKER_DOCKER_EXCLUDES: readonly string[] = [
  '*',
  ...WORKER_BUILD_CONTEXT.filter((entry) => !entry.includes('/')).map((entry) => `!${entry}`),
  '!models',
  'models/*',
  ...WORKER_BUILD_CONTEXT.filter((entry) => entry.startsWith('models/')).map((entry) => `!${entry}`),
  '**/__pycache__',
  '**/.pytest_cache',
];

/** The worker's probe of its model server (the worker image has Node, nothing else). */
export const MODEL_HEALTH_PROBE = `fetch('http://${MODEL_LINK_ALIAS}:${MODEL_PORT}/health-check').then((r) => r.json()).then((b) => process.exit(['READY', 'BUSY'].includes(b.status) ? 0 : 1), () => process.exit(1))`;

/** A predictor folder as an absolute path: a relative one is relative to the repository root. */
export const predictorFolderOf = (model: Pick<ModelDefinition, 'predictor'>): string =>
  path.resolve(REPO_ROOT, model.predictor.folder);

export interface FleetTaskProps {
  readonly model: ModelDefinition;
}

/**
 * A model's task: the worker and the model server, two containers on Docker's bridge network —
 * each its own network namespace, so tasks share an instance without fighting over ports, and
 * the host's firewall keeps containers from the instance metadata service. The worker reaches
 * the model server through a link; coglet reaches the worker's receiver at the worker's bridge
 * address. Both restart in place when they crash, so a crash costs a run, not a task.
 */
export class FleetTask extends Construct {
  public readonly taskDefinition: Ec2TaskDefinition;
  public readonly modelServer: ContainerDefinition;
  public readonly worker: ContainerDefinition;

  constructor(scope: Construct, id: string, props: FleetTaskProps) {
    super(scope, id);
    const { model } = props;
    const fleet = model.fleet;
    this.taskDefinition = new Ec2TaskDefinition(this, 'Task', { networkMode: NetworkMode.BRIDGE });
    tag(this.taskDefinition.node.defaultChild as CfnTaskDefinition, { model: model.id, role: 'model-task' });
    // File inputs: the worker downloads them here and the model opens them by path, so both
    // containers mount the task's own Docker volume at the same path. Docker creates it empty for
    // the task (copying the mount point's mode from the first image to mount it: 1777 in both)
    // and removes it with the task.
    const inputs = 'inputs';
    this.taskDefinition.addVolume({ name: inputs, dockerVolumeConfiguration: { scope: Scope.TASK, driver: 'local' } });
    const inputsMount = { sourceVolume: inputs, containerPath: MODEL_INPUTS_DIR, readOnly: false };
    const logging = (prefix: string) =>
      LogDrivers.awsLogs({ streamPrefix: prefix, logRetention: RetentionDays.ONE_MONTH });

    const folder = predictorFolderOf(model);
    // Links are followed: the build context has the files a predictor links to, as in another
    // folder (models/whisper-large-v3-turbo shares models/transcribe's code that way).
    const image = ContainerImage.fromAsset(folder, {
      file: writeCogDockerfile(folder),
      exclude: [...PREDICTOR_EXCLUDES],
      followSymlinks: SymlinkFollowMode.ALWAYS,
      platform: Platform.LINUX_AMD64,
    });
    this.modelServer = this.taskDefinition.addContainer('ModelServer', {
      image,
      memoryReservationMiB: fleet.memoryMiB,
      ...(fleet.gpus > 0 ? { gpuCount: fleet.gpus } : {}),
      environment: {
        PORT: String(MODEL_PORT),
        COG_MAX_CONCURRENCY: String(model.predictor.concurrency),
        // Its entrypoint removes the folders coglet leaves of runs that have ended.
        [MODEL_ENTRYPOINT_ENV.keepRunsMinutes]: String(keepRunsMinutes(model.timeouts.runSeconds)),
        // CUDA from the driver for any image, the CUDA base's or not (`gpu: false` with CUDA wheels).
        ...(fleet.gpus > 0 ? { NVIDIA_DRIVER_CAPABILITIES: 'compute,utility' } : {}),
      },
      logging: logging('model'),
      // A crashed model server comes back in its task: the worker hands its run back to the queue
      // and waits for setup again. One that cannot stay up for a minute stops the task instead.
      enableRestartPolicy: true,
      restartAttemptPeriod: RESTART_ATTEMPT_PERIOD,
    });
    this.modelServer.addMountPoints(inputsMount);

    this.worker = this.taskDefinition.addContainer(WORKER_CONTAINER, {
      image: ContainerImage.fromAsset(REPO_ROOT, {
        file: WORKER_DOCKERFILE,
        exclude: [...WORKER_DOCKER_EXCLUDES],
        ignoreMode: IgnoreMode.DOCKER,
        platform: Platform.LINUX_AMD64,
      }),
      memoryReservationMiB: 256,
      // The model server's health is asked from here: a check run inside the model's container
      // would run with the credentials ECS gives every container, which its entrypoint drops.
      // coglet answers READY when setup() is done and BUSY while it runs all it takes at once; a
      // restart in place (setup again) has five minutes before the task counts as unhealthy.
      healthCheck: {
        command: ['CMD', 'node', '-e', MODEL_HEALTH_PROBE],
        interval: Duration.seconds(30),
        timeout: Duration.seconds(5),
        startPeriod: Duration.seconds(300),
        retries: 10,
      },
      environment: {
        [WORKER_ENV.modelId]: model.id,
        [WORKER_ENV.modelUrl]: `http://${MODEL_LINK_ALIAS}:${MODEL_PORT}`,
        // The container's own bridge address (worker/callback-address.ts).
        [WORKER_ENV.callbackHost]: 'auto',
        [WORKER_ENV.callbackPort]: String(WORKER_CALLBACK_PORT),
        [WORKER_ENV.inputsDir]: MODEL_INPUTS_DIR,
        [WORKER_ENV.drainSeconds]: String(WORKER_DRAIN_SECONDS),
      },
      logging: logging('worker'),
      // ECS stops the worker first (it depends on the model server) and gives it this long: it
      // finishes its run or hands it back, then exits, and the model server goes after it.
      stopTimeout: Duration.seconds(WORKER_STOP_TIMEOUT_SECONDS),
      // A worker that crashed comes back (its jobs return to the queue when their leases end);
      // one that exits 0 has drained, and the task ends with it.
      enableRestartPolicy: true,
      restartIgnoredExitCodes: [0],
      restartAttemptPeriod: RESTART_ATTEMPT_PERIOD,
    });
    this.worker.addMountPoints(inputsMount);
    this.worker.addLink(this.modelServer, MODEL_LINK_ALIAS);
    this.worker.addContainerDependencies({
      container: this.modelServer,
      condition: ContainerDependencyCondition.START,
    });
  }
}
