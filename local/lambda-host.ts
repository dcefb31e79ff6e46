import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { localMeter } from './meter.ts';
import { REPO_ROOT } from './paths.ts';

type Handler = ((event: unknown, context: unknown) => Promise<unknown>) & { [STREAMING]?: true };
type StreamingHandler = (event: unknown, stream: Writable, context: unknown) => Promise<unknown>;
const loaded = new Map<string, Promise<Handler>>();

const STREAMING = Symbol.for('prognoz.local.streaming');
/** Lambda's response-stream prelude ends with eight NUL bytes. */
const PRELUDE_END = Buffer.alloc(8);

// What the Lambda Node.js runtime provides to response-streaming handlers, with its wire
// format (JSON prelude, eight NUL bytes, body), so streamed handlers run here unchanged.
// Other libraries (the SDK's invoke store) may have made the object already: add to it.
const runtimeGlobals = globalThis as unknown as { awslambda?: Record<string, unknown> };
const lambdaRuntime = (runtimeGlobals.awslambda ??= {});
lambdaRuntime.streamifyResponse ??= (fn: StreamingHandler) => Object.assign(fn, { [STREAMING]: true as const });
lambdaRuntime.HttpResponseStream ??= {
  from: (stream: Writable, metadata: object) => {
    stream.write(JSON.stringify(metadata));
    stream.write(PRELUDE_END);
    return stream;
  },
};

/** Runs a streaming handler into memory and reads its prelude back as a proxy result. */
const invokeStreaming = async (handler: Handler, event: unknown, context: unknown): Promise<unknown> => {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  const finished = new Promise<void>((resolve, reject) => {
    sink.once('finish', resolve);
    sink.once('error', reject);
  });
  await (handler as unknown as StreamingHandler)(event, sink, context);
  await finished;
  const all = Buffer.concat(chunks);
  const end = all.indexOf(PRELUDE_END);
  if (end < 0) return { statusCode: 200, headers: {}, body: all.toString('utf8') };
  const prelude = JSON.parse(all.subarray(0, end).toString('utf8')) as Record<string, unknown>;
  return { ...prelude, body: all.subarray(end + PRELUDE_END.length).toString('utf8') };
};

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
  const copy = JSON.parse(JSON.stringify(event)) as unknown;
  const started = performance.now();
  try {
    const result = handler[STREAMING] ? await invokeStreaming(handler, copy, context) : await handler(copy, context);
    return result === undefined ? null : (JSON.parse(JSON.stringify(result)) as unknown);
  } finally {
    localMeter.lambdaInvocation(entry, performance.now() - started);
  }
};
