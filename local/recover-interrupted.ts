import { endingWiring } from '../shared/adapters/ending-wiring.ts';
import { sfnWorkflowClient } from '../shared/adapters/workflow-client.ts';
import type { SweeperConfig } from '../shared/config/sweeper.ts';
import type { Clock } from '../shared/domain/clock.ts';
import { ENDINGS } from '../shared/domain/endings.ts';
import type { ModelCatalog } from '../shared/catalog/model-catalog.ts';
import { endPrediction, stoppingExecutions } from '../shared/use-cases/end-prediction.ts';

export const RESTART_ERROR = ENDINGS.restart;

/**
 * A restart loses what the emulators kept in memory (executions, queued jobs): every prediction
 * the previous run left unfinished ends `failed` here, through the same end as any other — its
 * hold released, its webhook queued — with the sweeper's configuration, as the sweeper would. One
 * of a model this run does not serve (brought to the last run, not to this one) ends saying so.
 * Nothing it finds stops the start: a record it cannot read, or a prediction it cannot end, is
 * named in a line and left as it is.
 */
export const recoverInterrupted = async (
  config: SweeperConfig,
  catalog: ModelCatalog,
  clock: Clock,
  log: (line: string) => void,
): Promise<void> => {
  const ending = endingWiring(config, clock, (message, fields) => log(`${message}: ${JSON.stringify(fields)}`));
  const { store } = ending;
  const effects = stoppingExecutions(
    {
      ...ending,
      catalog,
      workflow: sfnWorkflowClient(),
      stateMachineArnOf: config.stateMachineArnOf,
    },
    RESTART_ERROR,
  );
  const { predictions, unreadable } = await store.listActive();
  for (const record of unreadable)
    log(
      `prognoz: the record ${record.key} cannot be read back as a prediction, and was left as it is: ${record.problem}`,
    );
  for (const stale of predictions) {
    const error = catalog.catalogModel(stale.model) === undefined ? ENDINGS.withdrawn(stale.model) : RESTART_ERROR;
    try {
      const ended = await endPrediction(effects, stale.id, {
        type: 'failed',
        atMs: clock.now(),
        error,
        runtimeMs: null,
        by: 'sweeper',
      });
      if (!ended.ok) throw ended.error;
      log(
        `recovered prediction ${stale.id}: it was ${stale.status} when the runtime last stopped; now failed: ${error}`,
      );
    } catch (failure) {
      log(
        `prognoz: prediction ${stale.id} could not be ended at start, and was left ${stale.status}: ${String(failure)}`,
      );
    }
  }
};
