import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CfnTemplate } from '../../local/cfn-template.ts';
import { synthesizeTemplate } from '../../local/synthesize.ts';
import { METRICS, METRICS_NAMESPACE } from '../../shared/metrics.ts';

/**
 * Issue 57: what the dashboard and the alarms read of prognoz's own metrics is what the code
 * emits. Every such metric they read is one of shared/metrics.ts's definitions, with exactly its
 * dimensions, and some code outside that file counts it; none comes from log text.
 */

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const template: CfnTemplate = synthesizeTemplate();
const resourcesOf = (type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);

interface MetricRead {
  readonly where: string;
  readonly namespace: string;
  readonly name: string;
  readonly dimensions: readonly string[];
}

type CfnDimension = { readonly Name: string; readonly Value: unknown };
type CfnMetric = { readonly Namespace?: string; readonly MetricName?: string; readonly Dimensions?: CfnDimension[] };

/** What an alarm reads: its one metric, or each metric of its math. */
const alarmReads = (): MetricRead[] =>
  resourcesOf('AWS::CloudWatch::Alarm').flatMap(([id, alarm]) => {
    const properties = (alarm.Properties ?? {}) as CfnMetric & {
      readonly Metrics?: { readonly MetricStat?: { readonly Metric: CfnMetric } }[];
    };
    const metrics = [properties, ...(properties.Metrics ?? []).flatMap((query) => query.MetricStat?.Metric ?? [])];
    return metrics.flatMap((metric) =>
      metric.Namespace === undefined || metric.MetricName === undefined
        ? []
        : [
            {
              where: `alarm ${id}`,
              namespace: metric.Namespace,
              name: metric.MetricName,
              dimensions: (metric.Dimensions ?? []).map((dimension) => dimension.Name),
            },
          ],
    );
  });

/**
 * A dashboard's body is JSON joined with the template's references (a region, a queue's name),
 * each inside a JSON string: they stand as a placeholder, which leaves the JSON whole.
 */
const dashboardBody = (body: unknown): { widgets: { properties?: { title?: string; metrics?: unknown[][] } }[] } => {
  if (typeof body === 'string') return JSON.parse(body) as ReturnType<typeof dashboardBody>;
  const [, parts] = (body as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  return JSON.parse(parts.map((part) => (typeof part === 'string' ? part : 'REF')).join('')) as ReturnType<
    typeof dashboardBody
  >;
};

/** What a dashboard's graphs read: each metric row `[namespace, name, dimension, value, …, options]`; a math row (`{ expression }`) reads through its metrics' rows. */
const dashboardReads = (): MetricRead[] =>
  resourcesOf('AWS::CloudWatch::Dashboard').flatMap(([id, dashboard]) =>
    dashboardBody(dashboard.Properties?.DashboardBody).widgets.flatMap((widget) =>
      (widget.properties?.metrics ?? []).flatMap((row) => {
        const strings = row.filter((cell): cell is string => typeof cell === 'string');
        if (strings.length < 2 || typeof row[0] !== 'string') return [];
        const [namespace = '', name = '', ...pairs] = strings;
        return [
          {
            where: `dashboard ${id}, graph "${widget.properties?.title ?? ''}"`,
            namespace,
            name,
            dimensions: pairs.filter((_, index) => index % 2 === 0),
          },
        ];
      }),
    ),
  );

const reads = [...alarmReads(), ...dashboardReads()];
const ours = reads.filter((read) => read.namespace === METRICS_NAMESPACE);
const definitions = Object.entries(METRICS);

/** The code that runs (functions, worker, shared; not its tests), but the file that defines the metrics. */
const SOURCES = ['functions', 'worker', 'shared']
  .flatMap((dir) =>
    readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map((file) => path.join(dir, file)),
  )
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && file !== path.join('shared', 'metrics.ts'))
  .map((file) => ({ file, text: readFileSync(path.join(ROOT, file), 'utf8') }));

/**
 * Where the code counts the definition exported as `identifier`: a call given it and its
 * dimensions (`count(PREDICTIONS_ENDED, { … })`), in a file that imports it from shared/metrics.ts.
 */
const emittersOf = (identifier: string): string[] => {
  const imported = new RegExp(
    String.raw`import\s*\{[^}]*\b${identifier}\b[^}]*\}\s*from\s*'[./]*(shared/)?metrics\.ts'`,
  );
  const counted = new RegExp(String.raw`\(\s*${identifier}\s*,\s*\{`);
  return SOURCES.filter(({ text }) => imported.test(text) && counted.test(text)).map(({ file }) => file);
};

describe("the dashboard's and the alarms' metrics of the code", () => {
  it('are found in the template (the reading of graphs and alarms works)', () => {
    expect(reads.length).toBeGreaterThan(10);
    expect(ours.some((read) => read.where.startsWith('alarm'))).toBe(true);
    expect(ours.some((read) => read.where.startsWith('dashboard'))).toBe(true);
  });

  it('are each one of the definitions in shared/metrics.ts, read with exactly its dimensions', () => {
    for (const read of ours) {
      const definition = definitions.find(([, metric]) => metric.name === read.name)?.[1];
      expect(definition, `${read.where} reads ${read.name}, which shared/metrics.ts does not define`).toBeDefined();
      expect([...read.dimensions].sort(), `${read.where} reads ${read.name} with other dimensions`).toEqual(
        [...(definition?.dimensions ?? [])].sort(),
      );
    }
  });

  it('are each emitted by the code', () => {
    const read = new Set(ours.map((metric) => metric.name));
    for (const [identifier, metric] of definitions.filter(([, metric]) => read.has(metric.name)))
      expect(emittersOf(identifier), `${metric.name} (${identifier}) is read but nothing counts it`).not.toEqual([]);
  });

  it('are every metric the code emits: each definition is on the dashboard or behind an alarm', () => {
    expect(new Set(ours.map((read) => read.name))).toEqual(new Set(definitions.map(([, metric]) => metric.name)));
  });

  it('come from the code, never from a filter on log text (renaming a log message would empty them)', () => {
    const filtered = resourcesOf('AWS::Logs::MetricFilter').filter(([, filter]) =>
      JSON.stringify(filter.Properties?.MetricTransformations ?? []).includes(
        `"MetricNamespace":"${METRICS_NAMESPACE}"`,
      ),
    );
    expect(filtered.map(([id]) => id)).toEqual([]);
  });
});
