import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { buildApp } from 'fauxqs';
import { awsOperationOf } from './aws-json-server.ts';
import { closeServer } from './close-server.ts';
import { listenOnLoopback } from './loopback-server.ts';

export interface MeteredFauxqsOptions {
  readonly region: string;
  /**
   * Sees each SQS call (its action, from X-Amz-Target) once it is over (answered, or its caller
   * gone): with the answer's body when `wantsBody` asks for it.
   */
  readonly observeSqs: (action: string, body: Buffer) => void;
  /** Which SQS answers the meter reads (the rest are not kept). */
  readonly wantsBody: (action: string) => boolean;
  /** Sees each S3 call (its method and path) once it is over. */
  readonly observeS3: (method: string, path: string) => void;
}

export interface MeteredFauxqs {
  /** fauxqs itself, unmetered (the tests peek at queues there). */
  readonly address: string;
  /** The service's endpoints: every call counted by the meter. */
  readonly sqsEndpoint: string;
  readonly s3Endpoint: string;
  stop(): Promise<void>;
}

/** Keeps what a handler writes on `res` (its body), handing each piece on as it is written. */
const keepBody = (res: ServerResponse): (() => Buffer) => {
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string')
      chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return Reflect.apply(write, res, args) as boolean;
  }) as typeof res.write;
  res.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return Reflect.apply(end, res, args) as ServerResponse;
  }) as typeof res.end;
  return () => Buffer.concat(chunks);
};

/**
 * fauxqs (SQS and S3) with the meter inside its own process: the service's endpoints hand each
 * request straight to fauxqs's router, and the meter sees it once it is over. A proxy in front
 * of it cost every SQS and S3 call a second HTTP hop, inside this one process
 * (bench/results/2026-12-01.md).
 */
export const startMeteredFauxqs = async (options: MeteredFauxqsOptions): Promise<MeteredFauxqs> => {
  const app = buildApp({ logger: false, defaultRegion: options.region });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const metered = (observe: (req: IncomingMessage, res: ServerResponse) => void) =>
    createServer((req, res) => {
      observe(req, res);
      app.routing(req, res);
    });
  const sqs = metered((req, res) => {
    const action = awsOperationOf(req);
    const body = options.wantsBody(action) ? keepBody(res) : () => Buffer.alloc(0);
    res.once('close', () => options.observeSqs(action, body()));
  });
  const s3 = metered((req, res) => {
    const { method = 'GET', url = '/' } = req;
    res.once('close', () => options.observeS3(method, url));
  });
  try {
    return {
      address,
      sqsEndpoint: await listenOnLoopback(sqs),
      s3Endpoint: await listenOnLoopback(s3),
      stop: async () => {
        await Promise.all([sqs, s3].map(closeServer));
        await app.close();
      },
    };
  } catch (error) {
    await app.close();
    throw error;
  }
};
