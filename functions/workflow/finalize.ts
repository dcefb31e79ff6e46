import { endingWiring } from '../../shared/adapters/ending-wiring.ts';
import { finalizeConfigFromEnv, type FinalizeConfig } from '../../shared/config/finalize.ts';
import { systemClock, type Clock } from '../../shared/domain/clock.ts';
import type { ModelCatalog } from '../../shared/catalog/model-catalog.ts';
import { finalizePrediction } from '../../shared/use-cases/finalize-prediction.ts';
import { finalizeInput, type FinalizeOutput } from '../../shared/workflow/messages.ts';
import { serviceLogger } from '../service-logger.ts';
import { lambdaEntry, once } from '../lambda-entry.ts';
import { processModelCatalog } from '../model-catalog.ts';

const logger = serviceLogger('workflow');

const finalizeDeps = (
  config: FinalizeConfig,
  clock: Clock,
  catalog: ModelCatalog,
): Parameters<typeof finalizePrediction>[0] => ({
  catalog,
  ...endingWiring(config, clock, (message, fields) => logger.warn(message, fields)),
  clock,
});

/** The workflow's Finalize task, reached when Dispatch failed: input is the execution state with the caught error. */
export const handler = lambdaEntry((env) => {
  const deps = once(() => finalizeDeps(finalizeConfigFromEnv(env), systemClock, processModelCatalog()));
  return async (event: unknown): Promise<FinalizeOutput> => finalizePrediction(deps(), finalizeInput.parse(event));
});
