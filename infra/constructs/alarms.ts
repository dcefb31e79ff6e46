import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../shared/metrics.ts';

export interface OperationalAlarmsProps {
  readonly deadLetterQueues: readonly IQueue[];
  readonly stateMachines: readonly IStateMachine[];
  readonly api: RestApi;
  /** Its errors mean something may stay stuck. */
  readonly sweeper: IFunction;
}

/** What must wake someone: dead letters, failed executions, API 5xx, workers lost, a failing sweeper. */
export class OperationalAlarms extends Construct {
  public readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: OperationalAlarmsProps) {
    super(scope, id);
    const alarm = (name: string, metric: IMetric, threshold: number, description: string) => {
      this.alarms.push(
        new Alarm(this, name, {
          metric,
          threshold,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
          alarmDescription: description,
        }),
      );
    };
    props.deadLetterQueues.forEach((queue, i) =>
      alarm(
        `DeadLetters${i}`,
        queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        1,
        'Messages reached a dead-letter queue',
      ),
    );
    props.stateMachines.forEach((machine, i) =>
      alarm(
        `FailedExecutions${i}`,
        machine.metricFailed({ period: Duration.minutes(5) }),
        1,
        'A prediction workflow failed outright (Finalize could not record a result; the sweeper ends the prediction)',
      ),
    );
    alarm(
      'Api5xx',
      props.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
      5,
      'The API answered 5xx',
    );
    alarm(
      'WorkersLost',
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'WorkerLost',
        dimensionsMap: { service: 'prognoz-worker' },
        period: Duration.minutes(5),
        statistic: 'Sum',
      }),
      3,
      'Workers stopped renewing their lease mid-run (their predictions went back to the queue)',
    );
    alarm(
      'SweeperErrors',
      props.sweeper.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      3,
      'The sweeper keeps failing: predictions may stay unfinished',
    );
  }
}
