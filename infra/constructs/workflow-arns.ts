import { ArnFormat, Stack } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { WORKFLOW_NAMES } from '../../shared/catalog/resource-names.ts';

/**
 * The models' workflows as a group, by their names' prefix (WORKFLOW_NAMES): the ARN prefix the
 * functions are told, and grants on every workflow of the deployment — one statement each, however
 * many models there are.
 */
export class WorkflowArns {
  /** The prefix of every workflow's name: the stack's name. */
  public readonly namePrefix: string;
  /** A workflow's ARN up to its model's part. */
  public readonly arnPrefix: string;
  private readonly stateMachines: string;
  private readonly executions: string;

  constructor(scope: IConstruct) {
    const stack = Stack.of(scope);
    this.namePrefix = WORKFLOW_NAMES.prefixOf(stack.stackName);
    const arn = (resource: string, resourceName: string) =>
      stack.formatArn({ service: 'states', resource, resourceName, arnFormat: ArnFormat.COLON_RESOURCE_NAME });
    this.arnPrefix = arn('stateMachine', this.namePrefix);
    this.stateMachines = arn('stateMachine', `${this.namePrefix}*`);
    this.executions = arn('execution', `${this.namePrefix}*:*`);
  }

  /** A model's workflow's name. */
  nameOf(model: { readonly id: string }): string {
    return WORKFLOW_NAMES.nameOf(this.namePrefix, model);
  }

  grantStart(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({ grantee, actions: ['states:StartExecution'], resourceArns: [this.stateMachines] });
  }

  grantExecution(grantee: IGrantable, ...actions: string[]): Grant {
    return Grant.addToPrincipal({ grantee, actions, resourceArns: [this.executions] });
  }
}
