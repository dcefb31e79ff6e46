import { keptBody, REQUEST_LOG_RETENTION_SECONDS } from '../../../shared/adapters/request-log.ts';
import type { LoggedRequest, RequestLog } from '../../../shared/ports/request-log.ts';
import { answer } from './answer.ts';

/** A request as it is kept: its body cut to what a log keeps, and when it goes. */
export interface KeptRequest extends Omit<LoggedRequest, 'requestId'> {
  readonly bodyBytes: number | null;
  readonly bodyTruncated: boolean;
  readonly expiresAtSeconds: number;
}

/** Kept requests in memory, by request id; `kept` reads one back as the table's item would give it. */
export const inMemoryRequestLog = (): RequestLog & {
  readonly kept: (requestId: string) => Promise<KeptRequest | null>;
} => {
  const requests = new Map<string, KeptRequest>();
  return {
    keep: (request, nowMs) =>
      answer(() => {
        const body = request.body === null ? null : keptBody(request.body);
        const { requestId, ...rest } = request;
        requests.set(requestId, {
          ...rest,
          body: body?.body ?? null,
          bodyBytes: body?.truncated ? body.bytes : null,
          bodyTruncated: body?.truncated ?? false,
          expiresAtSeconds: Math.floor(nowMs / 1000) + REQUEST_LOG_RETENTION_SECONDS,
        });
      }),
    kept: (requestId) => answer(() => requests.get(requestId) ?? null),
  };
};
