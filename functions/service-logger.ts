import { Logger } from '@aws-lambda-powertools/logger';

/**
 * A function's logger, named for what it is (`prognoz-api`, `prognoz-sweeper`, …), so that its
 * lines are told apart in a shared log search. Request bodies, inputs and outputs are never passed to one.
 */
export const serviceLogger = (service: 'api' | 'authorizer' | 'sweeper' | 'webhooks' | 'workflow'): Logger =>
  new Logger({ serviceName: `prognoz-${service}` });
