import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import {
  DefinitionBody,
  LogLevel,
  StateMachine,
  StateMachineType,
  type CfnStateMachine,
} from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { phaseLimitsOf, type ModelDefinition } from '../../shared/catalog/registry.ts';
import { dispatchTimeoutSeconds, predictionChain } from '../workflow/prediction-chain.ts';
import { tag } from './metadata.ts';

export interface PredictionWorkflowProps {
  readonly model: ModelDefinition;
  readonly queue: IQueue;
  readonly finalize: IFunction;
  /** Its name (WORKFLOW_NAMES): functions find it, and IAM grants on it, by its prefix. */
  readonly stateMachineName: string;
}

/**
 * One Standard state machine per model; IAM comes from the chain itself. Every state transition is
 * logged (without inputs and outputs: those are the customers' data) and traced in X-Ray, so an
 * execution that went wrong can be followed step by step.
 */
export class PredictionWorkflow extends Construct {
  public readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: PredictionWorkflowProps) {
    super(scope, id);
    const limits = phaseLimitsOf(props.model);
    const logs = new LogGroup(this, 'Logs', {
      // Under /aws/vendedlogs/, Step Functions' log delivery shares one CloudWatch Logs resource
      // policy among all the models' log groups instead of growing it (5,120 characters) with each.
      logGroupName: `/aws/vendedlogs/states/${props.stateMachineName}`,
      retention: RetentionDays.ONE_MONTH,
      // Named, so a retained group would block the stack's next creation (a rolled-back first deploy too).
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(
        predictionChain(this, { limits, queue: props.queue, finalize: props.finalize }),
      ),
      // Dispatch's own limit plus room for Finalize with its retries.
      timeout: Duration.seconds(dispatchTimeoutSeconds(limits) + 300),
      comment: `Predictions of ${props.model.id}`,
      logs: { destination: logs, level: LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });
    tag(this.stateMachine.node.defaultChild as CfnStateMachine, { model: props.model.id, role: 'prediction-workflow' });
  }
}
