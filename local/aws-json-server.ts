import { createServer, type IncomingMessage } from 'node:http';
import { closeServer } from './close-server.ts';
import { listenOnLoopback } from './loopback-server.ts';

/** An error an emulated AWS API answers with: `name` is its error type (ExecutionDoesNotExist, …). */
export class ApiError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

export interface AwsJsonServer {
  readonly url: string;
  close(): Promise<void>;
}

export interface AwsJsonService {
  /** `1.0` (Step Functions) or `1.1` (ECS, Application Auto Scaling), as the SDK client sends it. */
  readonly version: '1.0' | '1.1';
  /** Each operation, by the name after the dot of its `X-Amz-Target`; an ApiError it throws is answered as that error. */
  readonly operations: Readonly<Record<string, (body: Record<string, unknown>) => unknown>>;
  /** The `__type` of an error of that name, as the service spells it. */
  readonly errorType?: (name: string) => string;
  /** The error an exception that is not an ApiError is answered as. */
  readonly otherError?: string;
  /** Told of every call, before it is answered. */
  readonly onCall?: (operation: string) => void;
}

/** The operation an AWS JSON-protocol request names (`X-Amz-Target: DynamoDB_20120810.GetItem` → `GetItem`). */
export const awsOperationOf = (req: IncomingMessage): string =>
  String(req.headers['x-amz-target'] ?? '')
    .split('.')
    .at(-1) ?? '';

/**
 * Serves an AWS JSON-protocol API on a port of its own, so that the SDK's clients, pointed at it
 * by their endpoint, talk to an emulator unchanged.
 */
export const serveAwsJson = async (service: AwsJsonService): Promise<AwsJsonServer> => {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const operation = awsOperationOf(req);
      service.onCall?.(operation);
      let status = 200;
      let payload: unknown;
      try {
        const handler = service.operations[operation];
        if (!handler)
          throw new ApiError('UnknownOperationException', `the local runtime does not implement ${operation}`);
        payload = handler(JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>);
      } catch (error) {
        status = 400;
        const name = error instanceof ApiError ? error.name : (service.otherError ?? 'ServerException');
        payload = {
          __type: service.errorType ? service.errorType(name) : name,
          message: error instanceof Error ? error.message : String(error),
        };
      }
      res
        .writeHead(status, { 'content-type': `application/x-amz-json-${service.version}` })
        .end(JSON.stringify(payload));
    });
  });
  return { url: await listenOnLoopback(server), close: () => closeServer(server) };
};
