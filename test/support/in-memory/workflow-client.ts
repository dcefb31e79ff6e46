import type { ExecutionStatus, WorkflowClient } from '../../../shared/ports/workflow-client.ts';
import type { ExecutionInput } from '../../../shared/workflow/messages.ts';
import { answer } from './answer.ts';

interface Execution {
  readonly input: ExecutionInput;
  status: ExecutionStatus;
  cause?: string;
}

/**
 * Executions in memory, named after their prediction as Step Functions names them. `refuse` makes
 * the next starts throw the given errors, one each (a throttled or broken engine); `end` moves an
 * execution on as the engine would.
 */
export const inMemoryWorkflowClient = (): WorkflowClient & {
  executions(stateMachineArn: string): ReadonlyMap<string, Readonly<Execution>>;
  refuse(...errors: Error[]): void;
  end(stateMachineArn: string, predictionId: string, status: Exclude<ExecutionStatus, 'RUNNING' | 'MISSING'>): void;
  /** Forgets an execution, as if it was never started (its create died before it started it). */
  forget(stateMachineArn: string, predictionId: string): void;
} => {
  const machines = new Map<string, Map<string, Execution>>();
  const refusals: Error[] = [];
  const of = (arn: string) => {
    const found = machines.get(arn) ?? new Map<string, Execution>();
    machines.set(arn, found);
    return found;
  };
  return {
    start: (arn, input) =>
      answer(() => {
        const refusal = refusals.shift();
        if (refusal) throw refusal;
        const executions = of(arn);
        if (executions.has(input.predictionId)) return 'exists' as const;
        executions.set(input.predictionId, { input, status: 'RUNNING' });
        return 'started' as const;
      }),
    stop: (arn, predictionId, cause) =>
      answer(() => {
        const execution = of(arn).get(predictionId);
        if (execution?.status === 'RUNNING') Object.assign(execution, { status: 'ABORTED', cause });
      }),
    status: (arn, predictionId) => answer(() => of(arn).get(predictionId)?.status ?? 'MISSING'),
    executions: (arn) => of(arn),
    refuse: (...errors) => refusals.push(...errors),
    forget: (arn, predictionId) => of(arn).delete(predictionId),
    end: (arn, predictionId, status) => {
      const execution = of(arn).get(predictionId);
      if (!execution) throw new Error(`no execution ${predictionId}`);
      execution.status = status;
    },
  };
};
