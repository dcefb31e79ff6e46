import { ArnFormat, Stack } from 'aws-cdk-lib';
import { Grant, type IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { WAITER_QUEUE_NAMES } from '../../shared/adapters/waiter-queue-names.ts';

/**
 * The queues synchronous waits learn of their predictions' ends in (architecture: Synchronous
 * waits): made at run time, one per waiting process, so the stack declares none; it grants on
 * their names' prefix (WAITER_QUEUE_NAMES), one statement each.
 */
export class WaiterQueues {
  /** The prefix of every waiter queue's name: the stack's name and `-waiter-`. */
  public readonly namePrefix: string;
  private readonly queues: string;

  constructor(scope: IConstruct) {
    const stack = Stack.of(scope);
    this.namePrefix = WAITER_QUEUE_NAMES.prefixOf(stack.stackName);
    this.queues = stack.formatArn({
      service: 'sqs',
      resource: `${this.namePrefix}*`,
      arnFormat: ArnFormat.NO_RESOURCE_NAME,
    });
  }

  /** A process that waits: it makes its queue and takes its notices off it. */
  grantWait(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({
      grantee,
      actions: ['sqs:CreateQueue', 'sqs:ReceiveMessage', 'sqs:DeleteMessage'],
      resourceArns: [this.queues],
    });
  }

  /** A process that ends predictions: it sends their waiters the notice. */
  grantTell(grantee: IGrantable): Grant {
    return Grant.addToPrincipal({ grantee, actions: ['sqs:SendMessage'], resourceArns: [this.queues] });
  }

  /** The sweeper: it lists the queues (ListQueues has no resource-level permission) and deletes the old ones. */
  grantRemoveOld(grantee: IGrantable): void {
    Grant.addToPrincipal({ grantee, actions: ['sqs:ListQueues'], resourceArns: ['*'] });
    Grant.addToPrincipal({ grantee, actions: ['sqs:DeleteQueue'], resourceArns: [this.queues] });
  }
}
