export interface LoggedRequest {
  readonly requestId: string;
  readonly account: string;
  readonly method: string;
  readonly path: string;
  /** Headers as sent, less `authorization`. */
  readonly headers: Record<string, string>;
  readonly body: string | null;
}

/**
 * Requests whose senders allowed it (`x-log-request: true`), kept under their `x-request-id` for
 * support, and deleted by TTL after a week. Nothing from a request body reaches a log line.
 */
export interface RequestLog {
  keep(request: LoggedRequest, nowMs: number): Promise<void>;
}
