import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Dashboard, GraphWidget, Metric, TextWidget, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Ec2Service } from 'aws-cdk-lib/aws-ecs';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { TERMINAL_STATUSES } from '../../shared/domain/prediction.ts';
import { METRICS_NAMESPACE } from '../../shared/metrics.ts';

export interface DashboardModel {
  readonly id: string;
  readonly queue: IQueue;
  readonly stateMachine: IStateMachine;
  readonly service: Ec2Service;
  readonly clusterName: string;
}

export interface ServiceDashboardProps {
  readonly models: readonly DashboardModel[];
  readonly api: RestApi;
  readonly webhookDeadLetters: IQueue;
  /** The webhook sender's logs: every ended prediction passes through it once, first attempt. */
  readonly webhookSenderLogs: ILogGroup;
}

/** The metric the dashboard counts ended predictions by. */
export const PREDICTIONS_ENDED_METRIC = 'PredictionsEnded';

const PERIOD = Duration.minutes(1);

/**
 * One CloudWatch dashboard of the service: creates, ends by status, each model's queue (depth
 * and age) and fleet size, webhook dead letters, and the API's 4xx and 5xx.
 */
export class ServiceDashboard extends Construct {
  public readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    // Every ending queues its webhook message (whether or not the prediction has a webhook);
    // the sender's first attempt logs its status once: a count of ends by status, for free.
    new MetricFilter(this, 'Ended', {
      logGroup: props.webhookSenderLogs,
      filterPattern: FilterPattern.all(
        FilterPattern.stringValue('$.message', '=', 'webhook attempt'),
        FilterPattern.numberValue('$.attempt', '=', 1),
        FilterPattern.any(...TERMINAL_STATUSES.map((status) => FilterPattern.stringValue('$.event', '=', status))),
      ),
      metricNamespace: METRICS_NAMESPACE,
      metricName: PREDICTIONS_ENDED_METRIC,
      metricValue: '1',
      dimensions: { status: '$.event' },
    });
    const perModel = (metric: (model: DashboardModel) => IMetric) => props.models.map(metric);
    const graph = (title: string, left: IMetric[], stacked = false) =>
      new GraphWidget({ title, left, width: 12, height: 6, stacked });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new TextWidget({
            markdown:
              '# prognoz\nCreates are workflow executions started (one per prediction); ends come from the webhook sender (one per ended prediction, webhook or not).',
            width: 24,
            height: 2,
          }),
        ],
        [
          graph(
            'Predictions created, by model',
            perModel((model) =>
              model.stateMachine.metricStarted({ period: PERIOD, statistic: 'Sum', label: model.id }),
            ),
            true,
          ),
          graph(
            'Predictions ended, by status',
            TERMINAL_STATUSES.map(
              (status) =>
                new Metric({
                  namespace: METRICS_NAMESPACE,
                  metricName: PREDICTIONS_ENDED_METRIC,
                  dimensionsMap: { status },
                  period: PERIOD,
                  statistic: 'Sum',
                  label: status,
                }),
            ),
            true,
          ),
        ],
        [
          graph(
            'Jobs waiting, by model',
            perModel((model) =>
              model.queue.metricApproximateNumberOfMessagesVisible({
                period: PERIOD,
                statistic: 'Maximum',
                label: model.id,
              }),
            ),
          ),
          graph(
            'Oldest waiting job (s), by model',
            perModel((model) =>
              model.queue.metricApproximateAgeOfOldestMessage({
                period: PERIOD,
                statistic: 'Maximum',
                label: model.id,
              }),
            ),
          ),
        ],
        [
          graph(
            'Tasks running, by model',
            perModel(
              (model) =>
                new Metric({
                  namespace: 'ECS/ContainerInsights',
                  metricName: 'RunningTaskCount',
                  dimensionsMap: { ClusterName: model.clusterName, ServiceName: model.service.serviceName },
                  period: PERIOD,
                  statistic: 'Maximum',
                  label: model.id,
                }),
            ),
            true,
          ),
          graph('Webhooks dead-lettered', [
            props.webhookDeadLetters.metricApproximateNumberOfMessagesVisible({
              period: PERIOD,
              statistic: 'Maximum',
              label: 'dead letters',
            }),
          ]),
        ],
        [
          graph('API 4xx and 5xx', [
            props.api.metricClientError({ period: PERIOD, statistic: 'Sum', label: '4xx' }),
            props.api.metricServerError({ period: PERIOD, statistic: 'Sum', label: '5xx' }),
          ]),
          graph('API requests and latency (p90, ms)', [
            props.api.metricCount({ period: PERIOD, statistic: 'Sum', label: 'requests' }),
            props.api.metricLatency({ period: PERIOD, statistic: 'p90', label: 'latency p90' }),
          ]),
        ],
      ],
    });
  }
}
