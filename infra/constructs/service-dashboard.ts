import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Dashboard, GraphWidget, MathExpression, Metric, TextWidget, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Ec2Service } from 'aws-cdk-lib/aws-ecs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { TERMINAL_STATUSES } from '../../shared/domain/prediction.ts';
import { PREDICTIONS_ENDED, WEBHOOK_ATTEMPT_OUTCOMES, WEBHOOK_ATTEMPTS, WORKERS_LOST } from '../../shared/metrics.ts';
import { countOf } from './counts.ts';

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
}

const PERIOD = Duration.minutes(1);

/**
 * One CloudWatch dashboard of the service: creates, ends by status, each model's queue (depth
 * and age) and fleet size, webhook dead letters, the API's 4xx and 5xx, workers lost by model and
 * webhook attempts by outcome. What the code counts is read as shared/metrics.ts defines it.
 */
export class ServiceDashboard extends Construct {
  public readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const perModel = (metric: (model: DashboardModel) => IMetric) => props.models.map(metric);
    const graph = (title: string, left: IMetric[], stacked = false) =>
      new GraphWidget({ title, left, width: 12, height: 6, stacked });
    this.dashboard = new Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new TextWidget({
            markdown:
              '# prognoz\nCreates are workflow executions started (one per prediction); ends, lost workers and webhook attempts are counted by the code that makes them (namespace `prognoz`).',
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
            // Counted by model and status: each status is the sum of its models'.
            (props.models.length === 0 ? [] : TERMINAL_STATUSES).map(
              (status) =>
                new MathExpression({
                  expression: `SUM([${props.models.map((_, index) => `${status}${index}`).join(', ')}])`,
                  usingMetrics: Object.fromEntries(
                    props.models.map((model, index) => [
                      `${status}${index}`,
                      countOf(PREDICTIONS_ENDED, { Model: model.id, Status: status }, { period: PERIOD }),
                    ]),
                  ),
                  period: PERIOD,
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
        [
          graph(
            'Workers lost, by model',
            perModel((model) => countOf(WORKERS_LOST, { Model: model.id }, { period: PERIOD, label: model.id })),
          ),
          graph(
            'Webhook attempts, by outcome',
            WEBHOOK_ATTEMPT_OUTCOMES.map((outcome) =>
              countOf(WEBHOOK_ATTEMPTS, { Outcome: outcome }, { period: PERIOD, label: outcome }),
            ),
            true,
          ),
        ],
      ],
    });
  }
}
