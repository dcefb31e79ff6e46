import { serviceLogger } from '../service-logger.ts';

/** One logger for the API's route functions. */
export const logger = serviceLogger('api');
