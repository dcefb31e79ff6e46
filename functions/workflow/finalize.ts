import { endingWiring } from '../../shared/adapters/ending-wiring.ts';
import { finalizeConfigFromEnv, type FinalizeConfig } from '../../shared/config/finalize.ts';
import { systemClock, type Clock } from '../../shared/domain/clock.ts';
import { finalizePrediction } from '../../shared/use-cases/finalize-prediction.ts';
import { finalizeInput, type FinalizeOutput } from '../../shared/workflow/messages.ts';
import { serviceLogger } from '../service-logger.ts';
import { lambdaEntry, once } from '../lambda-entry.ts';

const logger = serviceLogger('workflow');

const finalizeDeps = (config: FinalizeConfig, clock: Clock): Parameters<typeof finalizePrediction>[0] => ({
  ...endingWiring(config, clock, (message, fields) => logger.warn(message, fields)),
  clock,
});

/** The workflow's Finalize task, reached when Dispatch failed: input is the execution state with the caught error. */
export const handler = lambdaEntry((env) => {
  const deps = once(() => finalizeDeps(finalizeConfigFromEnv(env), systemClock));
  return async (event: unknown): Promise<FinalizeOutput> => finalizePrediction(deps(), finalizeInput.parse(event));
});
