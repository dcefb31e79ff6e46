/**
 * What the API's edge allows a request before any handler sees it. On AWS, API Gateway's own
 * quotas; the local front (local/api-front.ts) enforces the same, and adds the timeouts API
 * Gateway keeps to itself, so that one slow or broken client never holds what others need. The
 * docs (docs/reliability.md, "Limits, and clients that misbehave") and the OpenAPI document state them from here.
 */
export const EDGE_LIMITS = {
  /**
   * Headers, names and line ends included (API Gateway's REST quota, 10,240 bytes; a Regional API's
   * URL may be as long again): beyond, 431. Node's parser counts the request line in it too.
   */
  headerBytes: 10_240,
  /** A request body (API Gateway's 10 MB payload): beyond, 413. Model inputs take 1 MiB of it. */
  bodyBytes: 10 * 1024 * 1024,
  /** From a connection's first byte (or its previous answer), its request line and headers must arrive within this: else 408. */
  headersSeconds: 10,
  /** A body may pause this long at most: else 408, and the connection closes. */
  bodyIdleSeconds: 10,
  /** After its first `bodyGraceSeconds`, a body must have come at `minBodyBytesPerSecond` on average: else 408. */
  bodyGraceSeconds: 10,
  minBodyBytesPerSecond: 8 * 1024,
  /** A kept-alive connection with no request in it is closed after this (API Gateway's idle connection timeout). */
  keepAliveSeconds: 310,
  /** A buffered route's handler must answer within this (API Gateway's integration timeout): else 504. */
  integrationSeconds: 29,
} as const;

/** The limits in words, for the docs and the OpenAPI document. */
export const EDGE_LIMITS_TEXT =
  `Every request: its headers at most ${EDGE_LIMITS.headerBytes} bytes (else 431) and its body at most ` +
  `${EDGE_LIMITS.bodyBytes / 1024 / 1024} MiB (else 413, answered before the connection closes); a request that HTTP cannot ` +
  `parse is 400 \`malformed_request\`. Where the service runs its own edge (the local runtime), the headers must arrive ` +
  `within ${EDGE_LIMITS.headersSeconds} s, and a body may pause at most ${EDGE_LIMITS.bodyIdleSeconds} s and must average ` +
  `${EDGE_LIMITS.minBodyBytesPerSecond / 1024} KiB/s after its first ${EDGE_LIMITS.bodyGraceSeconds} s (else 408 ` +
  `\`request_timeout\` and the connection closes); an idle kept-alive connection is closed after ` +
  `${EDGE_LIMITS.keepAliveSeconds} s. Every answer, these included, is JSON in the error shape.`;
