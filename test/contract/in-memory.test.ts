import { setTimeout as sleep } from 'node:timers/promises';
import { inMemoryAccountStore } from '../support/in-memory/account-store.ts';
import { fakeClock } from '../support/in-memory/clock.ts';
import { inMemoryDeliveryLog } from '../support/in-memory/delivery-log.ts';
import { inMemoryEndingNotices } from '../support/in-memory/ending-notices.ts';
import { inMemoryFileStore } from '../support/in-memory/file-store.ts';
import { inMemoryOutputStore } from '../support/in-memory/output-store.ts';
import { inMemoryPredictionStore } from '../support/in-memory/prediction-store.ts';
import { inMemoryRateWindows } from '../support/in-memory/rate-limiter.ts';
import { inMemoryRequestLog } from '../support/in-memory/request-log.ts';
import { inMemoryDeploymentLog } from '../support/in-memory/deployment-log.ts';
import { inMemoryModelServer } from '../support/in-memory/model-server.ts';
import { inMemoryModelExamples } from '../support/in-memory/model-examples.ts';
import { describeModelExamplesContract } from './model-examples.contract.ts';
import { inMemoryWebhookNotifier } from '../support/in-memory/webhook-notifier.ts';
import { inMemoryWorkflowClient } from '../support/in-memory/workflow-client.ts';
import { describeAccountStoreContract } from './account-store.contract.ts';
import { describeDeliveryLogContract } from './delivery-log.contract.ts';
import { describeEndingNoticesContract } from './ending-notices.contract.ts';
import { describeFileStoreContract } from './file-store.contract.ts';
import { describeOutputStoreContract } from './output-store.contract.ts';
import { describeClaimContract } from './prediction-claim.contract.ts';
import { describePredictionStoreContract, type MakePredictionStore } from './prediction-store.contract.ts';
import { describeRateLimiterContract } from './rate-limiter.contract.ts';
import { describeRequestLogContract } from './request-log.contract.ts';
import { describeDeploymentLogContract } from './deployment-log.contract.ts';
import { describeModelServerContract } from './model-server.contract.ts';
import { describeWebhookNotifierContract } from './webhook-notifier.contract.ts';
import { describeWorkflowClientContract } from './workflow-client.contract.ts';

/** The in-memory adapters the use-case tests run on, held to the same contracts as the real ones (emulated-aws.test.ts). */
const given = <T>(value: T): Promise<T> => Promise.resolve(value);

const inMemoryPredictions: MakePredictionStore = (clock, retentionSeconds) => {
  const accounts = inMemoryAccountStore();
  const store = inMemoryPredictionStore({ ledger: accounts.ledger, retentionSeconds, now: () => clock.now() });
  return given({ store, accounts });
};
describePredictionStoreContract('in memory', inMemoryPredictions);
describeClaimContract('in memory', inMemoryPredictions);
describeAccountStoreContract('in memory', () => given(inMemoryAccountStore()));
describeDeliveryLogContract('in memory', (retentionSeconds) => given(inMemoryDeliveryLog(retentionSeconds)));
describeOutputStoreContract('in memory', () => given(inMemoryOutputStore()));
describeFileStoreContract('in memory', (clock) => given(inMemoryFileStore(() => clock.now())));
describeModelExamplesContract('in memory', () => given(inMemoryModelExamples()));
describeWebhookNotifierContract('in memory', () => {
  const notifier = inMemoryWebhookNotifier();
  return given({ notifier, received: notifier.receive });
});
describeWorkflowClientContract('in memory', () =>
  given({
    workflow: inMemoryWorkflowClient(),
    stateMachineArn: 'arn:aws:states:us-east-1:000000000000:stateMachine:w',
  }),
);
describeRateLimiterContract('in memory', () => given(inMemoryRateWindows()));
describeDeploymentLogContract('in memory', () => given(inMemoryDeploymentLog()));
describeRequestLogContract('in memory', () => {
  const log = inMemoryRequestLog();
  return given({ log, kept: log.kept });
});
describeEndingNoticesContract('in memory', () => {
  const clock = fakeClock();
  const notices = inMemoryEndingNotices(clock);
  // A turn of the event loop: what the adapters have begun runs as far as it can.
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return given({
    inbox: notices.inbox,
    teller: notices.teller,
    inboxes: notices.inboxes,
    vanish: (address) => given(notices.vanish(address)),
    now: () => clock.now(),
    elapse: async (ms) => {
      await turn();
      clock.advance(ms);
      await turn();
    },
    later: (ms) => clock.advance(ms),
  });
});
describeModelServerContract('in memory', () => {
  const server = inMemoryModelServer({
    now: () => Date.now(),
    sleep: (ms, signal) => sleep(ms, undefined, { signal }).catch(() => undefined),
  });
  return given({ server, lose: () => given(server.lose()), close: () => given(undefined) });
});
