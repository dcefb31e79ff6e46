import { describe, expect, it } from 'vitest';
import { MAX_KEPT_BODY_BYTES, REQUEST_LOG_RETENTION_SECONDS } from '../../shared/adapters/request-log.ts';
import type { RequestLog } from '../../shared/ports/request-log.ts';
import type { KeptRequest } from '../support/in-memory/request-log.ts';
import { T0 } from '../support/in-memory/clock.ts';

export interface RequestLogHarness {
  readonly log: RequestLog;
  /** The request kept under `requestId`, read back as it is kept. */
  readonly kept: (requestId: string) => Promise<KeptRequest | null>;
}

export type MakeRequestLog = () => Promise<RequestLogHarness>;

/** What every RequestLog does, whatever keeps the requests. */
export const describeRequestLogContract = (name: string, make: MakeRequestLog) =>
  describe(`${name}: the request log`, () => {
    it('keeps a request for a week, its body cut to what a log keeps', async () => {
      const { log, kept } = await make();
      const request = {
        account: 'account-1',
        method: 'POST',
        path: '/v1/predictions',
        headers: { 'content-type': 'application/json', 'x-log-request': 'true' },
      };
      await log.keep({ ...request, requestId: 'request-short', body: '{"a":1}' }, T0);
      expect(await kept('request-short')).toEqual({
        ...request,
        body: '{"a":1}',
        bodyBytes: null,
        bodyTruncated: false,
        expiresAtSeconds: T0 / 1000 + REQUEST_LOG_RETENTION_SECONDS,
      });
      const long = 'я'.repeat(MAX_KEPT_BODY_BYTES);
      await log.keep({ ...request, requestId: 'request-long', body: long }, T0);
      const cut = await kept('request-long');
      expect(cut).toMatchObject({ bodyBytes: MAX_KEPT_BODY_BYTES * 2, bodyTruncated: true });
      expect(Buffer.byteLength(cut?.body ?? '')).toBe(MAX_KEPT_BODY_BYTES);
      await log.keep({ ...request, requestId: 'request-empty', body: null }, T0);
      expect(await kept('request-empty')).toMatchObject({ body: null, bodyTruncated: false });
      expect(await kept('request-none')).toBeNull();
    });
  });
