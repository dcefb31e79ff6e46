import type { ConsoleConfig } from '../../../shared/api/console-site.ts';
import { CONSOLE_CONFIG_PATH } from '../../../shared/api/console-site.ts';

/** Where the console finds the sign-in endpoint: a file beside the page, written by whoever serves it. */
export const loadConfig = async (): Promise<ConsoleConfig> => {
  const response = await fetch(CONSOLE_CONFIG_PATH, { cache: 'no-store' });
  if (!response.ok)
    throw new Error(`the console's configuration (${CONSOLE_CONFIG_PATH}) could not be read: HTTP ${response.status}`);
  return (await response.json()) as ConsoleConfig;
};
