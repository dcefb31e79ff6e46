import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './paths.ts';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
const loaded = new Map<string, Promise<Handler>>();

/** Loads a function's source (as the template names it) once, like a warm Lambda container. */
const load = (entry: string): Promise<Handler> => {
  let handler = loaded.get(entry);
  if (!handler) {
    handler = import(pathToFileURL(path.join(REPO_ROOT, entry)).href).then((module: { handler?: Handler }) => {
      if (typeof module.handler !== 'function') throw new Error(`${entry} exports no handler`);
      return module.handler;
    });
    loaded.set(entry, handler);
  }
  return handler;
};

/** Invokes a handler as Lambda would: a JSON copy of the event and a context with a deadline. */
export const invokeLocal = async (entry: string, event: unknown, timeoutSeconds = 30): Promise<unknown> => {
  const handler = await load(entry);
  const deadline = Date.now() + timeoutSeconds * 1000;
  const context = {
    awsRequestId: randomUUID(),
    functionName: path.basename(entry, '.ts'),
    functionVersion: '$LATEST',
    memoryLimitInMB: '512',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
  const result = await handler(JSON.parse(JSON.stringify(event)) as unknown, context);
  return result === undefined ? null : (JSON.parse(JSON.stringify(result)) as unknown);
};
