import { SHARED_ENV, type Environment } from '../shared/config/environment.ts';
import { settingsOf, variablesOf, type ProcessKind } from '../shared/config/kinds.ts';

/** What the local runtime sets for every process that reads it: loopback webhooks and file URLs are allowed here only. */
const LOCAL_VALUES: Readonly<Record<string, string>> = { [SHARED_ENV.allowLoopback]: 'true' };

/**
 * A process's own environment in the local runtime (architecture: Local runtime), in layers:
 * what the template gives it, resolved to the local resources; its settings (the variables of its
 * kind that may be left out, such as PROGNOZ_RETENTION_DAYS) as this runtime's own environment
 * sets them, the way an operator tunes a deployment; what the local runtime sets for every
 * process; and what only this machine can say (`local`: a worker's model server and folders).
 */
export const localEnvironment = (
  kind: ProcessKind,
  fromTemplate: Readonly<Record<string, string>>,
  host: Environment,
  local: Readonly<Record<string, string>> = {},
): Readonly<Record<string, string>> => {
  const reads = new Set(variablesOf(kind));
  const settings = settingsOf(kind).flatMap((name) => {
    const value = host[name];
    return value === undefined ? [] : [[name, value] as const];
  });
  const fixed = Object.entries(LOCAL_VALUES).filter(([name]) => reads.has(name));
  return { ...fromTemplate, ...Object.fromEntries(settings), ...Object.fromEntries(fixed), ...local };
};
