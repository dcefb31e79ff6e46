import { randomUUID } from 'node:crypto';
import { StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { localMeter } from '../meter.ts';
import { executorFor, type ExecutorDeps, type TaskState } from './executors.ts';
import { ApiError, serveAwsJson, type AwsJsonServer } from '../aws-json-server.ts';
import { TaskTokens } from './task-tokens.ts';

/** What the executor library reports of a run (its type is not exported by name). */
type EventLog = ReturnType<StateMachine['run']>['eventLogs'] extends AsyncIterable<infer E> ? E : never;

type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

/** One event of an execution's history, in the shape GetExecutionHistory answers with. */
export interface HistoryEvent {
  readonly id: number;
  readonly timestamp: number;
  readonly type: string;
  readonly [details: string]: unknown;
}

/** What EventBridge is told when an execution ends ("Step Functions Execution Status Change"). */
export interface ExecutionEnded {
  readonly executionArn: string;
  readonly stateMachineArn: string;
  readonly name: string;
  readonly status: ExecutionStatus;
  readonly input: string;
  readonly output: string | null;
  readonly error: string | null;
  readonly cause: string | null;
}

interface Execution {
  readonly arn: string;
  readonly stateMachineArn: string;
  readonly name: string;
  readonly input: string;
  readonly startDate: Date;
  readonly token: string;
  status: ExecutionStatus;
  stopDate?: Date;
  output?: string;
  error?: string;
  cause?: string;
  readonly history: HistoryEvent[];
  /** Stops the run; once it has ended, NOTHING_TO_ABORT. */
  abort: () => void;
}

// A finished execution is kept for DescribeExecution and its history, up to FINISHED_KEPT of them;
// its abort, made where it started, would keep that whole scope alive: the run, its copy of the
// definition, its handlers. It gets this one instead.
const NOTHING_TO_ABORT = (): void => undefined;

export interface LocalStateMachine {
  readonly arn: string;
  readonly definition: StateMachineDefinition;
}

const FINISHED_KEPT = 10_000;

/**
 * A Step Functions endpoint for the AWS SDK: the executions themselves run in
 * aws-local-stepfunctions over the synthesized definitions, with each Task bound by executors.ts.
 */
export class LocalStepFunctions {
  readonly tokens = new TaskTokens();
  private readonly machines: Map<string, LocalStateMachine>;
  private readonly executions = new Map<string, Execution>();
  private server: AwsJsonServer | undefined;

  constructor(
    machines: readonly LocalStateMachine[],
    private readonly deps: Omit<ExecutorDeps, 'tokens'>,
    /** Told of every execution that ends, as EventBridge would be. */
    private readonly onEnded: (ended: ExecutionEnded) => void = () => undefined,
  ) {
    // Validated once here, as CreateStateMachine would; validating at every execution took
    // ~100 ms of the runtime's single thread and capped it at a few predictions a second.
    for (const machine of machines) new StateMachine(structuredClone(machine.definition));
    this.machines = new Map(machines.map((machine) => [machine.arn, machine]));
  }

  startExecution(
    stateMachineArn: string,
    name: string | undefined,
    input: string | undefined,
  ): { executionArn: string; startDate: number } {
    const machine = this.machines.get(stateMachineArn);
    if (!machine) throw new ApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${stateMachineArn}'`);
    const executionName = name ?? randomUUID();
    const arn = `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${executionName}`;
    if (this.executions.has(arn)) throw new ApiError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(input ?? '{}');
    } catch {
      throw new ApiError('InvalidExecutionInput', 'the input is not JSON');
    }
    const token = `${randomUUID()}.${executionName}`;
    const history: HistoryEvent[] = [];
    const record = (type: string, details: Record<string, unknown>) =>
      history.push({ id: history.length + 1, timestamp: Date.now() / 1000, type, ...details });
    const handlers = Object.fromEntries(
      Object.entries(machine.definition.States)
        .filter(([, state]) => state.Type === 'Task')
        .map(([stateName, state]) => {
          const task = state as TaskState;
          const execute = executorFor(task, token, { ...this.deps, tokens: this.tokens });
          // The task's own events, with the parameters and result the service saw, as AWS records them.
          return [
            stateName,
            async (parameters: Record<string, unknown>) => {
              record('TaskScheduled', {
                taskScheduledEventDetails: { resource: task.Resource, parameters: JSON.stringify(parameters) },
              });
              try {
                const result = await execute(parameters);
                record('TaskSucceeded', {
                  taskSucceededEventDetails: { resource: task.Resource, output: JSON.stringify(result ?? null) },
                });
                return result;
              } catch (error) {
                record('TaskFailed', {
                  taskFailedEventDetails: {
                    resource: task.Resource,
                    error: error instanceof Error ? error.name : 'Error',
                    cause: error instanceof Error ? error.message : String(error),
                  },
                });
                throw error;
              }
            },
          ];
        }),
    );
    const startDate = new Date();
    // The executor library annotates the definition it is given (QueryLanguage): hand it a copy.
    const run = new StateMachine(structuredClone(machine.definition), { validationOptions: { noValidate: true } }).run(
      parsed as never,
      {
        overrides: { taskResourceLocalHandlers: handlers as never },
        noThrowOnAbort: true,
        context: {
          Execution: { Id: arn, Name: executionName, StartTime: startDate.toISOString() },
          StateMachine: { Id: stateMachineArn, Name: stateMachineArn.split(':').at(-1) },
          Task: { Token: token },
        },
      },
    );
    const execution: Execution = {
      arn,
      stateMachineArn,
      name: executionName,
      input: input ?? '{}',
      startDate,
      token,
      status: 'RUNNING',
      history,
      abort: () => run.abort(),
    };
    this.executions.set(arn, execution);
    localMeter.executionStarted();
    void (async () => {
      for await (const event of run.eventLogs) {
        if (event.type === 'StateEntered' || event.type === 'StateRetried') localMeter.stateTransition();
        record(event.type, historyDetails(event));
      }
    })().catch(() => undefined);
    run.result
      .then(
        (output) => {
          if (execution.status !== 'RUNNING') return;
          execution.status = 'SUCCEEDED';
          execution.output = JSON.stringify(output);
        },
        (error: unknown) => {
          if (execution.status !== 'RUNNING') return;
          const name = error instanceof Error ? error.name : 'Error';
          execution.status = name === 'ExecutionTimeoutError' ? 'TIMED_OUT' : 'FAILED';
          const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
          execution.error = cause instanceof Error ? cause.name : name;
          execution.cause = cause instanceof Error ? cause.message : String(cause);
        },
      )
      .finally(() => {
        execution.abort = NOTHING_TO_ABORT;
        execution.stopDate ??= new Date();
        this.tokens.close(token);
        this.forgetOldExecutions();
        this.onEnded({
          executionArn: arn,
          stateMachineArn,
          name: executionName,
          status: execution.status,
          input: execution.input,
          output: execution.output ?? null,
          error: execution.error ?? null,
          cause: execution.cause ?? null,
        });
      });
    return { executionArn: arn, startDate: startDate.getTime() / 1000 };
  }

  stopExecution(executionArn: string, error?: string, cause?: string): { stopDate: number } {
    const execution = this.executions.get(executionArn);
    if (!execution) throw new ApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    if (execution.status === 'RUNNING') {
      execution.status = 'ABORTED';
      execution.stopDate = new Date();
      if (error !== undefined) execution.error = error;
      if (cause !== undefined) execution.cause = cause;
      execution.abort();
      this.tokens.close(execution.token);
    }
    return { stopDate: (execution.stopDate ?? new Date()).getTime() / 1000 };
  }

  describeExecution(executionArn: string): Record<string, unknown> {
    const execution = this.executions.get(executionArn);
    if (!execution) throw new ApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return {
      executionArn: execution.arn,
      stateMachineArn: execution.stateMachineArn,
      name: execution.name,
      status: execution.status,
      startDate: execution.startDate.getTime() / 1000,
      ...(execution.stopDate ? { stopDate: execution.stopDate.getTime() / 1000 } : {}),
      input: execution.input,
      ...(execution.output !== undefined ? { output: execution.output } : {}),
      ...(execution.error !== undefined ? { error: execution.error } : {}),
      ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
    };
  }

  getExecutionHistory(executionArn: string): { events: HistoryEvent[] } {
    const execution = this.executions.get(executionArn);
    if (!execution) throw new ApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
    return { events: [...execution.history] };
  }

  /** Executions still running: a clean stop aborts them (their predictions are recovered at the next start). */
  runningCount(): number {
    return [...this.executions.values()].filter((execution) => execution.status === 'RUNNING').length;
  }

  private forgetOldExecutions(): void {
    if (this.executions.size <= FINISHED_KEPT) return;
    for (const [arn, execution] of this.executions) {
      if (execution.status !== 'RUNNING') this.executions.delete(arn);
      if (this.executions.size <= FINISHED_KEPT) return;
    }
  }

  /** Serves the AWS JSON 1.0 protocol of Step Functions, so the SDK clients talk to it unchanged. */
  async listen(): Promise<string> {
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    this.server = await serveAwsJson({
      version: '1.0',
      operations: {
        StartExecution: (b) => this.startExecution(text(b.stateMachineArn) ?? '', text(b.name), text(b.input)),
        StopExecution: (b) => this.stopExecution(text(b.executionArn) ?? '', text(b.error), text(b.cause)),
        DescribeExecution: (b) => this.describeExecution(text(b.executionArn) ?? ''),
        GetExecutionHistory: (b) => this.getExecutionHistory(text(b.executionArn) ?? ''),
        SendTaskSuccess: (b) => (
          this.tokens.succeed(text(b.taskToken) ?? '', JSON.parse(text(b.output) ?? 'null')),
          {}
        ),
        SendTaskFailure: (b) => (
          this.tokens.fail(text(b.taskToken) ?? '', text(b.error) ?? '', text(b.cause) ?? ''),
          {}
        ),
        SendTaskHeartbeat: (b) => (this.tokens.heartbeat(text(b.taskToken) ?? ''), {}),
      },
      errorType: (name) => `com.amazonaws.swf.service.v2.model#${name}`,
      otherError: 'InvalidArn',
      onCall: (operation) => localMeter.stepFunctionsCall(operation),
    });
    return this.server.url;
  }

  async close(): Promise<void> {
    for (const execution of this.executions.values()) {
      if (execution.status === 'RUNNING') execution.abort();
    }
    await this.server?.close();
  }
}

/** The details of a library event, named as GetExecutionHistory names them (inputs and outputs as JSON text). */
const historyDetails = (event: EventLog): Record<string, unknown> => {
  const json = (value: unknown) => JSON.stringify(value ?? null);
  switch (event.type) {
    case 'ExecutionStarted':
      return { executionStartedEventDetails: { input: json(event.input) } };
    case 'ExecutionSucceeded':
      return { executionSucceededEventDetails: { output: json(event.output) } };
    case 'ExecutionFailed':
      return { executionFailedEventDetails: { error: event.Error, cause: json(event.Cause) } };
    case 'StateEntered':
      return { stateEnteredEventDetails: { name: event.state.name, input: json(event.state.input) } };
    case 'StateExited':
      return { stateExitedEventDetails: { name: event.state.name, output: json(event.state.output) } };
    case 'StateFailed':
      return { stateFailedEventDetails: { name: event.state.name, error: event.Error, cause: json(event.Cause) } };
    case 'StateCaught':
    case 'StateRetried':
      return { stateEventDetails: { name: event.state.name, input: json(event.state.input) } };
    default:
      return {};
  }
};
