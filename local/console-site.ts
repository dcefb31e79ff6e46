import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import {
  CONSOLE_CONFIG_PATH,
  consoleSecurityHeaders,
  isConsolePage,
  type ConsoleConfig,
} from '../shared/api/console-site.ts';
import type { ConsoleBuild } from '../web/build.ts';

/** The console as the local runtime serves it: its build, and the configuration it reads. */
export interface LocalConsole {
  readonly build: ConsoleBuild;
  readonly config: ConsoleConfig;
}

const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Answers a GET or HEAD for a console page, its configuration or one of its files, as CloudFront
 * does on AWS (infra/constructs/console-site.ts): the same headers, the page for every page
 * address. False when the path is none of the console's.
 */
export const serveConsole = async (
  site: LocalConsole,
  pathname: string,
  method: string,
  res: ServerResponse,
): Promise<boolean> => {
  const headers = consoleSecurityHeaders(new URL(site.config.signIn.endpoint).origin);
  const send = (body: Buffer | string, contentType: string, cacheControl: string) => {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    res.writeHead(200, {
      ...headers,
      'content-type': contentType,
      'content-length': bytes.length,
      'cache-control': cacheControl,
    });
    res.end(method === 'HEAD' ? undefined : bytes);
  };
  if (pathname === CONSOLE_CONFIG_PATH) {
    send(JSON.stringify(site.config), 'application/json', 'no-cache');
    return true;
  }
  const name = isConsolePage(pathname) ? 'index.html' : pathname.slice(1);
  const file = site.build.files.find((candidate) => candidate.name === name);
  if (!file) return false;
  send(await readFile(path.join(site.build.dir, file.name)), file.contentType, file.immutable ? IMMUTABLE : 'no-cache');
  return true;
};
