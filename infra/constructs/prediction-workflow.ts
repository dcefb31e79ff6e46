import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { DefinitionBody, StateMachine, StateMachineType, type CfnStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import type { ModelDefinition } from '../../shared/models/registry.ts';
import { predictionChain } from '../workflow/prediction-chain.ts';
import { tag } from './metadata.ts';

export interface PredictionWorkflowProps {
  readonly model: ModelDefinition;
  readonly table: ITable;
  readonly queue: IQueue;
  readonly finalize: IFunction;
  readonly webhookQueue: IQueue;
}

/** One Standard state machine per model; IAM comes from the chain itself. */
export class PredictionWorkflow extends Construct {
  public readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: PredictionWorkflowProps) {
    super(scope, id);
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromChainable(predictionChain(this, props)),
      // The run's own limit plus room for MarkQueued and Finalize with their retries.
      timeout: Duration.seconds(props.model.timeouts.runSeconds + 300),
      comment: `Predictions of ${props.model.id}`,
    });
    tag(this.stateMachine.node.defaultChild as CfnStateMachine, { model: props.model.id, role: 'prediction-workflow' });
  }
}
