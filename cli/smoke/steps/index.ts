import type { SmokeCheck } from '../context.ts';
import { cancelRunning } from './cancel.ts';
import { createAndPoll } from './create-and-poll.ts';
import { eventStream } from './event-stream.ts';
import { signedWebhook } from './signed-webhook.ts';
import { synchronousCreate } from './synchronous-create.ts';

/** In this order: the first wakes a cold fleet, so the synchronous create finds it running. */
export const SMOKE_STEPS: readonly SmokeCheck[] = [
  createAndPoll,
  synchronousCreate,
  eventStream,
  cancelRunning,
  signedWebhook,
];
