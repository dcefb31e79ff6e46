import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import { isStreamingRoute, type HandlerName } from '../../shared/api/routes.ts';
import type { StreamingMode } from './pipeline.ts';

/**
 * middy's streaming mode for `handler` where its route answers through Lambda response streaming
 * (routes.ts), else null. Imported only by those routes' handlers: the mode's module loads Node's
 * web streams (4 ms of a cold start, bench §4).
 */
export const streamingModeOf = (handler: HandlerName): StreamingMode | null =>
  isStreamingRoute(handler) ? executionModeStreamifyResponse : null;
