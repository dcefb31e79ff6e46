import { Logger } from '@aws-lambda-powertools/logger';

/** One logger for the API. Request bodies, inputs and outputs are never passed to it. */
export const logger = new Logger({ serviceName: 'prognoz-api' });
