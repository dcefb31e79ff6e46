import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { metadataOf, resourcesOfType, type CfnResource } from '../../local/template.ts';
import { wholeTemplate } from '../../local/synthesize.ts';
import { WAITER_QUEUE_NAMES } from '../../shared/adapters/waiter-queue-names.ts';
import { API_ENV } from '../../shared/config/api.ts';
import { SWEEPER_ENV } from '../../shared/config/sweeper.ts';
import { testCatalog } from '../support/catalog.ts';

const { app, stack } = buildApp({ bundle: false });
/** Everything the stack deploys, its models' nested stacks (and their workers' task roles) included. */
const template = wholeTemplate(app, stack);
const prefix = WAITER_QUEUE_NAMES.prefixOf(stack.stackName);

interface Statement {
  readonly Action: string | readonly string[];
  readonly Resource: unknown;
}

const statementsOfRole = (roleId: string): Statement[] =>
  resourcesOfType(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => (policy.Properties?.Roles as { Ref?: string }[]).some((role) => role.Ref === roleId))
    .flatMap(([, policy]) => (policy.Properties?.PolicyDocument as { Statement: Statement[] }).Statement);

const functionAt = (entry: string): CfnResource => {
  const found = resourcesOfType(template, 'AWS::Lambda::Function').find(
    ([, fn]) => metadataOf(fn, 'entry') === entry,
  )?.[1];
  if (!found) throw new Error(`no function runs ${entry}`);
  return found;
};
const roleOf = (resource: CfnResource, property: 'Role' | 'TaskRoleArn'): string =>
  (resource.Properties?.[property] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];

/** What a role may do to the waiter queues (an ARN ending in the stack's prefix and `*`), sorted. */
const waiterActionsOf = (roleId: string): string[] =>
  statementsOfRole(roleId)
    .filter((statement) => JSON.stringify(statement.Resource).includes(`:${prefix}*"`))
    .flatMap((statement) => [statement.Action].flat())
    .sort();
const waiterActionsOfFunction = (entry: string) => waiterActionsOf(roleOf(functionAt(entry), 'Role'));

const variablesOf = (entry: string): Record<string, unknown> =>
  (functionAt(entry).Properties?.Environment as { Variables: Record<string, unknown> }).Variables;

describe("the synchronous waits' queues", () => {
  it('are named after the stack, which tells the create function and the sweeper their prefix', () => {
    expect(prefix).toBe(`${stack.stackName}-waiter-`);
    expect(variablesOf('functions/http/create-prediction.ts')[API_ENV.waiterQueuePrefix]).toBe(prefix);
    expect(variablesOf('functions/sweeper/sweep.ts')[SWEEPER_ENV.waiterQueuePrefix]).toBe(prefix);
  });

  it('may be made, read and cleared by the create function alone among the routes', () => {
    expect(waiterActionsOfFunction('functions/http/create-prediction.ts')).toEqual([
      'sqs:CreateQueue',
      'sqs:DeleteMessage',
      'sqs:ReceiveMessage',
    ]);
    for (const entry of ['functions/http/get-prediction.ts', 'functions/http/list-predictions.ts'])
      expect(waiterActionsOfFunction(entry), entry).toEqual([]);
  });

  it('are told of an end by whoever makes one: a cancel, Finalize, the sweeper and every model’s worker', () => {
    for (const entry of ['functions/http/cancel-prediction.ts', 'functions/workflow/finalize.ts'])
      expect(waiterActionsOfFunction(entry), entry).toEqual(['sqs:SendMessage']);
    const tasks = resourcesOfType(template, 'AWS::ECS::TaskDefinition').filter(
      ([, task]) => metadataOf(task, 'role') === 'model-task',
    );
    expect(tasks.map(([, task]) => metadataOf(task, 'model')).sort()).toEqual(
      testCatalog.offered.map((model) => model.id).sort(),
    );
    for (const [id, task] of tasks)
      expect(waiterActionsOf(roleOf(task, 'TaskRoleArn')), id).toEqual(['sqs:SendMessage']);
  });

  it('are removed by the sweeper once old, which lists queues (ListQueues alone on `*`) and deletes only waiter queues', () => {
    const sweeperRole = roleOf(functionAt('functions/sweeper/sweep.ts'), 'Role');
    expect(waiterActionsOf(sweeperRole)).toEqual(['sqs:DeleteQueue', 'sqs:SendMessage']);
    const onEverything = statementsOfRole(sweeperRole).filter((statement) => statement.Resource === '*');
    expect(onEverything.flatMap((statement) => [statement.Action].flat())).toEqual(['sqs:ListQueues']);
  });
});
