import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  Alarm,
  ComparisonOperator,
  TreatMissingData,
  type IAlarmAction,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface NotifyingAlarmProps {
  readonly metric: IMetric;
  readonly threshold: number;
  readonly description: string;
}

/** An alarm at or above its threshold, which tells the topic when it fires and when it clears. */
export const notifyingAlarm = (scope: Construct, id: string, topic: ITopic, props: NotifyingAlarmProps): Alarm => {
  const alarm = new Alarm(scope, id, {
    metric: props.metric,
    threshold: props.threshold,
    evaluationPeriods: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: props.description,
  });
  const action: IAlarmAction = new SnsAction(topic);
  alarm.addAlarmAction(action);
  alarm.addOkAction(action);
  return alarm;
};

export interface AlarmTopicProps {
  /** Who is told (CDK context `prognoz:alarmEmail`); the subscription waits for their confirmation. */
  readonly email?: string;
}

/** Where every alarm of the stack notifies: an SNS topic, optionally with an email subscription. */
export class AlarmTopic extends Construct {
  public readonly topic: Topic;

  constructor(scope: Construct, id: string, props: AlarmTopicProps = {}) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: 'prognoz alarms', enforceSSL: true });
    if (props.email !== undefined) this.topic.addSubscription(new EmailSubscription(props.email));
  }
}

export interface OperationalAlarmsProps {
  readonly topic: ITopic;
  readonly webhookDeadLetters: IQueue;
  readonly api: RestApi;
  /** Its errors mean something may stay stuck. */
  readonly sweeper: IFunction;
}

/**
 * What must wake someone, beyond each model's own alarms (its stack's: dead jobs, failed
 * executions, workers lost): webhooks dead-lettered, API 5xx, a failing sweeper.
 */
export class OperationalAlarms extends Construct {
  public readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: OperationalAlarmsProps) {
    super(scope, id);
    const alarm = (name: string, metric: IMetric, threshold: number, description: string) =>
      notifyingAlarm(this, name, props.topic, { metric, threshold, description });
    this.alarms = [
      alarm(
        'WebhookDeadLetters',
        props.webhookDeadLetters.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        1,
        'Webhooks reached the dead-letter queue after every retry (redeliver them from the API or the console)',
      ),
      alarm(
        'Api5xx',
        props.api.metricServerError({ period: Duration.minutes(5), statistic: 'Sum' }),
        5,
        'The API answered 5xx',
      ),
      alarm(
        'SweeperErrors',
        props.sweeper.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        3,
        'The sweeper keeps failing: predictions may stay unfinished',
      ),
    ];
  }
}
