import type { StateMachineDefinition } from 'aws-local-stepfunctions';
import type { Environment } from '../shared/config/environment.ts';
import { processKindOf } from '../shared/config/kinds.ts';
import { WORKER_CONTAINER } from '../infra/constructs/container-names.ts';
import type { LocalEventSource } from './event-sources.ts';
import { rateToMs, type LocalRule } from './events.ts';
import type { LocalFunction } from './lambda-host.ts';
import { localEnvironment } from './process-environment.ts';
import type { LocalResources } from './provision.ts';
import {
  localFunctionArn,
  localStateMachineArn,
  metadataOf,
  resolveIntrinsics,
  resourcesOfType,
  type CfnResource,
  type CfnTemplate,
  type LocalBindings,
} from './template.ts';

/** A model's workflow, as the local Step Functions runs it. */
export interface LocalMachine {
  readonly logicalId: string;
  readonly model: string;
  readonly arn: string;
  readonly definition: StateMachineDefinition;
}

/** A model's worker as its task definition sets it up: its environment, resolved to the local resources. */
export interface LocalWorker {
  readonly model: string;
  readonly environment: Readonly<Record<string, string>>;
}

/** The template bound to this machine: every reference resolved to a local resource, every process given its environment. */
export interface BoundTemplate {
  /** The local value given to each intrinsic of the template, by `Ref:id` or `GetAtt:id.attribute`. */
  readonly resolved: ReadonlyMap<string, string>;
  /** The functions, by their local ARN. */
  readonly functions: ReadonlyMap<string, LocalFunction>;
  /** The function that runs an entry (the API's routes, its authorizer). */
  readonly functionAt: (entry: string) => LocalFunction;
  readonly machines: readonly LocalMachine[];
  readonly rules: readonly LocalRule[];
  readonly eventSources: readonly LocalEventSource[];
  readonly workers: readonly LocalWorker[];
}

const unbound = (what: string): never => {
  throw new Error(`the local runtime cannot bind ${what}`);
};

/** Local stand-ins for the names and attributes CloudFormation would give, each one recorded. */
const bindingsOf = (
  template: CfnTemplate,
  resources: LocalResources,
  record: (key: string, value: string) => string,
) => {
  const { tables, queues, buckets, userPools } = resources;
  const typeOf = (id: string) => template.Resources[id]?.Type;
  const ref = (id: string): string =>
    tables.get(id) ??
    queues.get(id)?.url ??
    buckets.get(id) ??
    userPools.get(id) ??
    (typeOf(id) === 'AWS::StepFunctions::StateMachine' ? machineArnOf(template, id) : undefined) ??
    (typeOf(id) === 'AWS::Lambda::Function' ? id : undefined) ??
    unbound(id);
  const getAtt = (id: string, attribute: string): string => {
    if (attribute === 'Arn' && typeOf(id) === 'AWS::Lambda::Function') return localFunctionArn(id);
    if (attribute === 'Arn' && queues.has(id)) return queues.get(id)?.arn ?? unbound(id);
    return unbound(`${id}.${attribute}`);
  };
  return {
    ref: (id) => record(`Ref:${id}`, ref(id)),
    getAtt: (id, attribute) => record(`GetAtt:${id}.${attribute}`, getAtt(id, attribute)),
  } satisfies LocalBindings;
};

/** A state machine's ARN comes from its name, as on AWS: the functions find it by its name's prefix. */
const machineArnOf = (template: CfnTemplate, id: string): string => {
  const name = template.Resources[id]?.Properties?.StateMachineName;
  return localStateMachineArn(typeof name === 'string' ? name : id);
};

/** A template's variables, resolved, but for those it marks as AWS's only. */
const resolvedVariables = (
  variables: Readonly<Record<string, unknown>>,
  bindings: LocalBindings,
  awsOnly: ReadonlySet<string> = new Set(),
): Record<string, string> =>
  Object.fromEntries(
    Object.entries(variables)
      .filter(([name]) => !awsOnly.has(name))
      .map(([name, value]) => [name, String(resolveIntrinsics(value, bindings))]),
  );

const functionOf = (logicalId: string, resource: CfnResource, bindings: LocalBindings, host: Environment) => {
  const entry = metadataOf(resource, 'entry');
  if (!entry) return null;
  const kind = processKindOf(metadataOf(resource, 'config'));
  const variables = (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
    ?.Variables;
  const awsOnly = new Set(metadataOf(resource, 'awsOnlyEnv')?.split(','));
  const fn: LocalFunction = {
    name: logicalId,
    entry,
    kind,
    timeoutSeconds: Number(resource.Properties?.Timeout ?? 3),
    environment: localEnvironment(kind, resolvedVariables(variables ?? {}, bindings, awsOnly), host),
  };
  return fn;
};

/** The template's EventBridge rules, each bound to the functions of its targets. */
const rulesOf = (
  template: CfnTemplate,
  bindings: LocalBindings,
  functions: ReadonlyMap<string, LocalFunction>,
): LocalRule[] =>
  resourcesOfType(template, 'AWS::Events::Rule').map(([logicalId, rule]) => {
    const props = rule.Properties ?? {};
    const targets = ((props.Targets ?? []) as { Arn: unknown }[]).map((target) => {
      const arn = String(resolveIntrinsics(target.Arn, bindings));
      return functions.get(arn) ?? unbound(`the target ${arn} of ${logicalId}`);
    });
    return {
      name: logicalId,
      targets,
      ...(typeof props.ScheduleExpression === 'string' ? { everyMs: rateToMs(props.ScheduleExpression) } : {}),
      ...(props.EventPattern !== undefined
        ? { pattern: resolveIntrinsics(props.EventPattern, bindings) as Record<string, unknown> }
        : {}),
    };
  });

/** The template's SQS event source mappings: which function takes which queue's messages, and how. */
const eventSourcesOf = (
  template: CfnTemplate,
  resources: LocalResources,
  functions: ReadonlyMap<string, LocalFunction>,
): LocalEventSource[] =>
  resourcesOfType(template, 'AWS::Lambda::EventSourceMapping').map(([, mapping]) => {
    const props = mapping.Properties ?? {};
    const queueId = String((props.EventSourceArn as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]);
    const functionId = (props.FunctionName as { Ref: string }).Ref;
    const queue = resources.queues.get(queueId) ?? unbound(queueId);
    return {
      queueUrl: queue.url,
      queueArn: queue.arn,
      fn: functions.get(localFunctionArn(functionId)) ?? unbound(functionId),
      batchSize: Number(props.BatchSize ?? 10),
      reportBatchItemFailures: ((props.FunctionResponseTypes ?? []) as string[]).includes('ReportBatchItemFailures'),
    };
  });

/** Each model's worker container, as its task definition sets its environment. */
const workersOf = (template: CfnTemplate, bindings: LocalBindings): LocalWorker[] =>
  resourcesOfType(template, 'AWS::ECS::TaskDefinition').flatMap(([logicalId, task]) => {
    const model = metadataOf(task, 'model');
    if (model === undefined || metadataOf(task, 'role') !== 'model-task') return [];
    const containers = (task.Properties?.ContainerDefinitions ?? []) as {
      Name: string;
      Environment?: { Name: string; Value: unknown }[];
    }[];
    const worker = containers.find((container) => container.Name === WORKER_CONTAINER);
    if (!worker) return unbound(`the worker of ${logicalId}`);
    const variables = Object.fromEntries((worker.Environment ?? []).map(({ Name, Value }) => [Name, Value]));
    return [{ model, environment: resolvedVariables(variables, bindings) }];
  });

/**
 * Binds the template to the resources provisioned here: resolves its references, gives each
 * function its own environment (its variables, resolved, with the settings `host` gives), and
 * reads the workflows, rules, event sources and workers it declares.
 */
export const bindTemplate = (template: CfnTemplate, resources: LocalResources, host: Environment): BoundTemplate => {
  const resolved = new Map<string, string>();
  const bindings = bindingsOf(template, resources, (key, value) => (resolved.set(key, value), value));
  const functions = new Map(
    resourcesOfType(template, 'AWS::Lambda::Function').flatMap(([logicalId, resource]) => {
      const fn = functionOf(logicalId, resource, bindings, host);
      return fn === null ? [] : [[localFunctionArn(logicalId), fn] as const];
    }),
  );
  const machines = resourcesOfType(template, 'AWS::StepFunctions::StateMachine').map(([logicalId, resource]) => ({
    logicalId,
    model: metadataOf(resource, 'model') ?? unbound(`model of ${logicalId}`),
    arn: machineArnOf(template, logicalId),
    definition: JSON.parse(
      String(resolveIntrinsics(resource.Properties?.DefinitionString, bindings)),
    ) as StateMachineDefinition,
  }));
  return {
    resolved,
    functions,
    functionAt: (entry) =>
      [...functions.values()].find((fn) => fn.entry === entry) ?? unbound(`a function that runs ${entry}`),
    machines,
    rules: rulesOf(template, bindings, functions),
    eventSources: eventSourcesOf(template, resources, functions),
    workers: workersOf(template, bindings),
  };
};
