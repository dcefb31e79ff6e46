import type { Duration } from 'aws-cdk-lib';
import { Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { MetricDefinition } from '../../shared/metrics.ts';

/**
 * A count the code emits (shared/metrics.ts), as a graph or an alarm reads it: under its own
 * namespace and name, with exactly its dimensions (CloudWatch tells metrics apart by their whole
 * set), summed over the period.
 */
export const countOf = <D extends string>(
  metric: MetricDefinition<D>,
  dimensions: Readonly<Record<D, string>>,
  options: { readonly period: Duration; readonly label?: string },
): Metric =>
  new Metric({
    namespace: metric.namespace,
    metricName: metric.name,
    dimensionsMap: Object.fromEntries(metric.dimensions.map((name) => [name, dimensions[name]])),
    statistic: 'Sum',
    ...options,
  });
