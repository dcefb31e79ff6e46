import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, WORKERS_LOST, type CountMetric } from '../metrics.ts';

/** Where a count that could not be emitted is reported (a process's logger). */
export type ReportMetricFailure = (message: string, fields: Record<string, unknown>) => void;

/**
 * Counts through Powertools Metrics: one EMF line on stdout per count, published at once, so no
 * handler or loop has to flush anything. A datum carries its metric's dimensions and nothing else
 * (Powertools' default `service` dimension is cleared), as the dashboard and alarms read it. The
 * Metrics instance is made at the first count, once the process's environment is settled:
 * POWERTOOLS_METRICS_DISABLED (which the local runtime sets for every process it hosts) makes
 * counting print nothing. A count that cannot be emitted is reported, never thrown at what it counts.
 */
export const powertoolsCounter = (report: ReportMetricFailure): CountMetric => {
  let metrics: Metrics | undefined;
  return (metric, dimensions) => {
    try {
      if (metrics === undefined) {
        metrics = new Metrics({ namespace: METRICS_NAMESPACE });
        metrics.clearDefaultDimensions();
      }
      for (const name of metric.dimensions) metrics.addDimension(name, dimensions[name]);
      metrics.addMetric(metric.name, MetricUnit.Count, 1);
      metrics.publishStoredMetrics();
    } catch (error) {
      report('a metric could not be emitted', {
        metric: metric.name,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
};

/** The worker's count of a lost worker (claimJob's `countLost`): WORKERS_LOST, for its model. */
export const lostWorkerCounter = (model: string, report: ReportMetricFailure): (() => void) => {
  const count = powertoolsCounter(report);
  return () => count(WORKERS_LOST, { Model: model });
};
