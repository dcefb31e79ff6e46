import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { HANDLER_FOR } from '../functions/lambda-entry.ts';
import type { Environment } from '../shared/config/environment.ts';
import type { ProcessKind } from '../shared/config/kinds.ts';
import { localMeter } from './meter.ts';
import { REPO_ROOT } from './paths.ts';

type Handler = ((event: unknown, context: unknown) => Promise<unknown>) & { [STREAMING]?: true };
type StreamingHandler = (event: unknown, stream: Writable, context: unknown) => Promise<unknown>;

/** A function of the template as this host runs it. */
export interface LocalFunction {
  /** Its logical id in the template. */
  readonly name: string;
  /** Its source file, relative to the repository root, exporting `handler` (functions/lambda-entry.ts). */
  readonly entry: string;
  readonly timeoutSeconds: number;
  /** Its kind of process, whose configuration module parses its environment (shared/config/kinds.ts). */
  readonly kind: ProcessKind;
  /** Its own environment: the template's variables, resolved to the local resources (local/process-environment.ts). */
  readonly environment: Environment;
}

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

/** Where an HTTP answer goes as it is made: its head once (status, headers), then the body's chunks. */
export interface ResponseSink {
  head(result: { readonly statusCode: number; readonly headers?: Record<string, unknown> }): void;
  write(chunk: Buffer): void;
  end(): void;
  /** Called when the caller went away: the handler's stream is broken off, as Lambda's is. */
  onClose(listener: () => void): void;
}

/** Splits the response-stream wire format (prelude, eight NUL bytes, body) into head and body as it arrives. */
const preludeSplitter = (sink: ResponseSink): Writable => {
  let pending: Buffer | null = Buffer.alloc(0);
  const writable = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const data = Buffer.from(chunk);
      if (pending === null) {
        sink.write(data);
        done();
        return;
      }
      pending = Buffer.concat([pending, data]);
      const end = pending.indexOf(PRELUDE_END);
      if (end >= 0) {
        sink.head(
          JSON.parse(pending.subarray(0, end).toString('utf8')) as {
            statusCode: number;
            headers?: Record<string, unknown>;
          },
        );
        const rest = pending.subarray(end + PRELUDE_END.length);
        pending = null;
        if (rest.length > 0) sink.write(rest);
      }
      done();
    },
    final(done) {
      if (pending !== null) {
        sink.head({ statusCode: 200, headers: {} });
        if (pending.length > 0) sink.write(pending);
      }
      sink.end();
      done();
    },
  });
  // As Lambda's stream breaks when its caller leaves. What the handler makes of that is its own
  // concern (functions/http/caller.ts); here it is never an unhandled 'error'.
  writable.on('error', () => undefined);
  sink.onClose(() => writable.destroy(new Error('the caller went away')));
  return writable;
};

/**
 * Invokes an API handler and answers through `sink`: a streaming handler's body as it is
 * written (server-sent events arrive as they happen), any other when it returns.
 */
export const invokeLocalHttp = async (
  fn: LocalFunction,
  event: unknown,
  timeoutSeconds: number,
  sink: ResponseSink,
): Promise<void> => {
  const handler = await handlerOf(fn);
  if (!handler[STREAMING]) {
    const result = (await invokeLocal(fn, event, timeoutSeconds)) as {
      statusCode: number;
      headers?: Record<string, unknown>;
      body?: string;
    };
    sink.head(result);
    sink.write(Buffer.from(result.body ?? '', 'utf8'));
    sink.end();
    return;
  }
  const started = performance.now();
  try {
    await (handler as unknown as StreamingHandler)(
      JSON.parse(JSON.stringify(event)) as unknown,
      preludeSplitter(sink),
      contextFor(fn.entry, timeoutSeconds),
    );
  } finally {
    localMeter.lambdaInvocation(fn.entry, performance.now() - started);
  }
};

const contextFor = (entry: string, timeoutSeconds: number) => {
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    awsRequestId: randomUUID(),
    functionName: path.basename(entry, '.ts'),
    functionVersion: '$LATEST',
    memoryLimitInMB: '512',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
};

type EntryModule = { readonly handler?: { readonly [HANDLER_FOR]?: (env: Environment) => Handler } };
const modules = new Map<string, Promise<EntryModule>>();
const handlers = new WeakMap<LocalFunction, Promise<Handler>>();

/**
 * A function's handler, made once from the function's own environment, like a warm Lambda
 * container: functions that share a source file share its code, never their configuration.
 */
const handlerOf = (fn: LocalFunction): Promise<Handler> => {
  let handler = handlers.get(fn);
  if (!handler) {
    let module = modules.get(fn.entry);
    if (!module) {
      module = import(pathToFileURL(path.join(REPO_ROOT, fn.entry)).href) as Promise<EntryModule>;
      modules.set(fn.entry, module);
    }
    handler = module.then(({ handler: exported }) => {
      const handlerFor = exported?.[HANDLER_FOR];
      if (typeof handlerFor !== 'function')
        throw new Error(`${fn.entry} exports no handler made from its environment (functions/lambda-entry.ts)`);
      return handlerFor(fn.environment);
    });
    handlers.set(fn, handler);
  }
  return handler;
};

/** Invokes a function as Lambda would: a JSON copy of the event and a context with a deadline (its timeout's, unless told). */
export const invokeLocal = async (
  fn: LocalFunction,
  event: unknown,
  timeoutSeconds = fn.timeoutSeconds,
): Promise<unknown> => {
  const handler = await handlerOf(fn);
  const context = contextFor(fn.entry, timeoutSeconds);
  const copy = JSON.parse(JSON.stringify(event)) as unknown;
  const started = performance.now();
  try {
    const result = handler[STREAMING] ? await invokeStreaming(handler, copy, context) : await handler(copy, context);
    return result === undefined ? null : (JSON.parse(JSON.stringify(result)) as unknown);
  } finally {
    localMeter.lambdaInvocation(fn.entry, performance.now() - started);
  }
};
