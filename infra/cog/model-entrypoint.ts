/**
 * What a model's container must not hold, and the entrypoint that takes it away before coglet
 * starts. ECS gives every container of a task the task role's credential address and the agent's
 * endpoints; the task role is the worker's, and a brought predictor is untrusted code.
 *
 * Only the container's first process goes through the entrypoint: anything Docker later starts
 * inside the container (a health check command, an exec) gets the configured environment back,
 * credentials included, as the model's own user, whose code can read /proc/<pid>/environ of it.
 * So nothing should be started inside a model's container from outside: check its health from the
 * worker's. (The entrypoint's own pruner is started by it, after the unset: MODEL_ENTRYPOINT_SCRIPT.)
 */

/**
 * The variables the entrypoint removes: the task role's credentials (the relative URI is the only
 * secret between a container and the role: the agent's address answers anyone who knows it), the
 * agent's endpoints (task protection: a model could keep its task from scaling in, renewing it; task
 * metadata: the task's ARN, its cluster, the worker's address — nothing a model needs, so nothing
 * it gets), and any static or assumed-role credentials the SDKs would read.
 */
export const WITHHELD_FROM_MODELS: readonly string[] = [
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
  'ECS_AGENT_URI',
  'ECS_CONTAINER_METADATA_URI',
  'ECS_CONTAINER_METADATA_URI_V4',
  'ECS_CONTAINER_METADATA_FILE',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_SECURITY_TOKEN',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AWS_PROFILE',
];

/**
 * The shell the entrypoint runs in: BusyBox from the official image, statically linked (musl).
 * Nothing of the model's image runs before the variables are gone — not its /bin/sh, not its
 * dynamic loader, not an /etc/ld.so.preload — so a build step or a package's install script (both
 * run as root at build time) cannot read them at start.
 */
export const ENTRYPOINT_SHELL_IMAGE = 'busybox:1.37.0-musl';

/** Where prognoz's own files of a model image live: off PATH, written after every build step. */
const MODEL_ENTRYPOINT_DIR = '/usr/local/libexec/prognoz';
export const MODEL_ENTRYPOINT_SHELL = `${MODEL_ENTRYPOINT_DIR}/busybox`;
export const MODEL_ENTRYPOINT = `${MODEL_ENTRYPOINT_DIR}/model-entrypoint`;

/** The model image's ENTRYPOINT (exec form): the static shell running the script, CMD its arguments. */
export const MODEL_ENTRYPOINT_COMMAND: readonly string[] = [MODEL_ENTRYPOINT_SHELL, 'sh', MODEL_ENTRYPOINT];

const HEREDOC_END = 'PROGNOZ_ENTRYPOINT_END';

/**
 * Where coglet keeps a folder for every run it takes (`<run>/inputs`, `<run>/outputs`: the files a
 * run returned) and never removes it (coglet's service.rs): a task that serves for weeks would
 * fill its disk with them.
 */
export const COGLET_RUNS_DIR = '/tmp/coglet/predictions';

/** The entrypoint's settings (the task definition's, or the local runtime's). */
export const MODEL_ENTRYPOINT_ENV = {
  /** How old a run's folder is removed at: older than any run can last. */
  keepRunsMinutes: 'PROGNOZ_KEEP_RUNS_MINUTES',
  /** How often the folders are looked at (seconds; 60 unless given). */
  pruneEverySeconds: 'PROGNOZ_PRUNE_EVERY_SECONDS',
  /** coglet's runs folder (COGLET_RUNS_DIR unless given). */
  runsDir: 'PROGNOZ_COGLET_RUNS_DIR',
} as const;

/**
 * How long a run's folder is kept: the longest a run may last (the model's run timeout, after
 * which the worker cancels it) and ten minutes for the cancel to land and coglet to read what the
 * run returned.
 */
export const keepRunsMinutes = (runSeconds: number): number => Math.ceil(runSeconds / 60) + 10;

/**
 * The entrypoint: removes WITHHELD_FROM_MODELS, starts the pruner of coglet's run folders, then
 * becomes its command (coglet) by exec — the same process, PID 1, with an environment (and
 * /proc/1/environ) that never had them, and no shell left behind holding them; signals go to
 * coglet as they would without it. The pruner is a new process (`sh -c`, exec'd after the unset,
 * so its /proc/<pid>/environ never had them either, where a forked subshell's would), runs as
 * long as coglet does, and removes every run folder older than a run can last.
 */
export const MODEL_ENTRYPOINT_SCRIPT = `#!${MODEL_ENTRYPOINT_SHELL} sh
# prognoz: a model's container keeps none of the task role's credentials or ECS agent endpoints.
unset ${WITHHELD_FROM_MODELS.join(' ')}
if [ "$#" -eq 0 ]; then
  echo 'prognoz-model-entrypoint: no command to run' >&2
  exit 64
fi
# coglet keeps a folder for every run and never removes it: those older than a run can last go.
# Its settings are read, then unset: coglet's environment holds nothing of prognoz's.
keep=\${${MODEL_ENTRYPOINT_ENV.keepRunsMinutes}:-} every=\${${MODEL_ENTRYPOINT_ENV.pruneEverySeconds}:-60} runs=\${${MODEL_ENTRYPOINT_ENV.runsDir}:-${COGLET_RUNS_DIR}}
unset ${Object.values(MODEL_ENTRYPOINT_ENV).join(' ')}
if [ -n "\$keep" ]; then
  sh -c 'while sleep "$3" && kill -0 "$4" 2>/dev/null; do
    find "$1" -mindepth 1 -maxdepth 1 -mmin "+$2" -exec rm -rf {} + 2>/dev/null
  done' prognoz-prune-runs "\$runs" "\$keep" "\$every" "\$\$" </dev/null >/dev/null 2>&1 &
fi
exec "$@"
`;

/**
 * The Dockerfile instructions that install the entrypoint, after every instruction a cog.yaml
 * contributes: BuildKit writes both files itself (a COPY, not a RUN in the image's own shell), so
 * no earlier build step decides what they contain.
 */
export const modelEntrypointInstructions = (): string[] => [
  `COPY --from=${ENTRYPOINT_SHELL_IMAGE} --chmod=0755 /bin/busybox ${MODEL_ENTRYPOINT_SHELL}`,
  `COPY --chmod=0755 <<'${HEREDOC_END}' ${MODEL_ENTRYPOINT}`,
  ...MODEL_ENTRYPOINT_SCRIPT.trimEnd().split('\n'),
  HEREDOC_END,
];
