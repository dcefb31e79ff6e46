import type { WebhookEvent } from '../../../shared/domain/prediction.ts';
import { asAccountId } from '../../../shared/domain/ids.ts';
import { createPredictionUseCase } from '../../../shared/use-cases/create-prediction.ts';
import { testCatalog } from '../catalog.ts';
import type { InMemoryService } from './service.ts';

export const echo = testCatalog.require('prognoz/echo');

export interface EchoPredictionOptions {
  readonly balanceKopecks?: number;
  readonly webhook?: string | null;
  readonly webhookEvents?: readonly WebhookEvent[] | null;
  readonly cancelAfterSeconds?: number | null;
  /** The inbox of a request that waits for its end. */
  readonly waiter?: string | null;
}

/**
 * An account and one echo prediction created for it through the create use case, as a caller
 * would: what the use-case tests start from. `held` reads the account's hold; `execution` the
 * prediction's workflow execution.
 */
export const createEchoPrediction = async (service: InMemoryService, options: EchoPredictionOptions = {}) => {
  const owner = asAccountId(`acct-${service.ids()}`);
  await service.accounts.createAccount(owner, service.clock.now(), { balanceKopecks: options.balanceKopecks ?? 1000 });
  const created = await createPredictionUseCase(service, {
    model: echo,
    owner,
    input: { text: 'hi' },
    webhook: options.webhook === undefined ? 'https://example.com/hook' : options.webhook,
    webhookEvents: options.webhookEvents ?? null,
    cancelAfterSeconds: options.cancelAfterSeconds ?? null,
    waiter: options.waiter ?? null,
  });
  if (!created.ok || created.value.kind !== 'created') throw new Error(`not created: ${JSON.stringify(created)}`);
  const { id } = created.value.prediction;
  const arn = service.stateMachineArnOf(echo.id) ?? '';
  const account = () => service.accounts.getAccount(owner, service.clock.now());
  return {
    id,
    owner,
    arn,
    start: created.value.start,
    account,
    held: async () => (await account())?.heldKopecks,
    execution: () => service.workflow.executions(arn).get(id),
  };
};
