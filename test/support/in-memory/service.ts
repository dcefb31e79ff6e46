import { monthlyLimitsKept } from '../../../shared/use-cases/monthly-limits.ts';
import { randomIds } from '../../../shared/domain/ids.ts';
import { stateMachineArnOfPrefix } from '../../../shared/config/environment.ts';
import { WORKFLOW_NAMES } from '../../../shared/catalog/resource-names.ts';
import { STACK_NAME } from '../../../shared/stack-name.ts';
import { testCatalog } from '../catalog.ts';
import { inMemoryAccountStore } from './account-store.ts';
import { fakeClock, type FakeClock } from './clock.ts';
import { inMemoryDeliveryLog } from './delivery-log.ts';
import { inMemoryEndingNotices } from './ending-notices.ts';
import { inMemoryOutputStore } from './output-store.ts';
import { inMemoryPredictionStore } from './prediction-store.ts';
import { inMemoryWebhookNotifier } from './webhook-notifier.ts';
import { inMemoryWebhookPoster } from './webhook-poster.ts';
import { inMemoryWorkflowClient } from './workflow-client.ts';

/** The state machine ARN of a catalog model, as the stack names them (one per model). */
export const inMemoryStateMachineArnOf = stateMachineArnOfPrefix(
  `arn:aws:states:us-east-1:000000000000:stateMachine:${WORKFLOW_NAMES.prefixOf(STACK_NAME)}`,
  testCatalog,
);

/**
 * Every port a use case takes, in memory, sharing one clock and one set of accounts: what the
 * use-case tests run on, in milliseconds, with no emulator. `pauses` records what the use cases
 * slept for (they never really sleep).
 */
export const inMemoryService = (clock: FakeClock = fakeClock(), retentionSeconds?: number) => {
  const accounts = inMemoryAccountStore();
  const pauses: number[] = [];
  const receiver = inMemoryWebhookPoster();
  const endings = inMemoryEndingNotices(clock);
  const outputs = inMemoryOutputStore();
  return {
    catalog: testCatalog,
    clock,
    accounts,
    monthlyLimits: monthlyLimitsKept(accounts),
    store: inMemoryPredictionStore({
      ledger: accounts.ledger,
      now: () => clock.now(),
      ...(retentionSeconds === undefined ? {} : { retentionSeconds }),
    }),
    workflow: inMemoryWorkflowClient(),
    stateMachineArnOf: inMemoryStateMachineArnOf,
    notifier: inMemoryWebhookNotifier(),
    /** Every process's inbox, and what reached none (`endings.lost`). */
    endings,
    /** The inbox of the process the use cases run in. */
    endingInbox: endings.inbox(),
    endingTeller: endings.teller,
    endingInboxes: endings.inboxes,
    outputs,
    inputs: outputs.inputs,
    deliveries: inMemoryDeliveryLog(retentionSeconds),
    receiver,
    post: receiver.post,
    ids: randomIds,
    pauses,
    sleep: (ms: number) => {
      pauses.push(ms);
      return Promise.resolve();
    },
  };
};

export type InMemoryService = ReturnType<typeof inMemoryService>;
