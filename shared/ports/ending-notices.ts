import type { PredictionId } from '../domain/ids.ts';
import type { TerminalPrediction } from '../domain/prediction.ts';

/**
 * Notices that a prediction has ended, sent by whoever ended it to the inbox of the process that
 * waits for it (a synchronous create), so that the wait learns of the end without polling
 * (architecture: Synchronous waits). Best-effort: a lost notice costs the waiter latency, never
 * correctness, for the wait still reads the prediction now and then. A notice carries the
 * prediction as it ended, so that the waiter answers without reading it again, unless its JSON is
 * larger than NOTICE_CARRIES_BYTES: then the waiter reads it.
 */

/** The largest ended prediction (its JSON) a notice carries: well inside an SQS message's 256 KiB. */
export const NOTICE_CARRIES_BYTES = 128 * 1024;

/**
 * How much of what notices carried an inbox keeps for waits that start after their notice came
 * (their JSON, in all): past it, the oldest are forgotten, and a wait for one of them is answered
 * null (its waiter reads the prediction). A busy process's memory stays bounded, whatever the items.
 */
export const INBOX_KEEPS_BYTES = 16 * 1024 * 1024;

/** The waiting process's side: one inbox per process, shared by every wait in it. */
export interface EndingInbox {
  /** Where enders send this process's notices; made at the first call, then the same (a new one if it vanished). */
  address(): Promise<string>;
  /**
   * Resolves when a notice for `id` has arrived (since the process began listening, even before
   * this call), with the prediction it carried (null when it carried none, or when the inbox has
   * forgotten it: INBOX_KEEPS_BYTES); with null at `untilMs` (epoch ms) if none has, or at once
   * when `signal` aborts. Never rejects.
   */
  waitFor(id: PredictionId, untilMs: number, signal?: AbortSignal): Promise<TerminalPrediction | null>;
}

/** The ender's side. */
export interface EndingTeller {
  /** Sends a notice that `ended` ended to the inbox at `address`. Never rejects: a failure is logged, not the ender's. */
  tell(address: string, ended: TerminalPrediction): Promise<void>;
}

/** The inboxes of a deployment as a whole, for the sweeper: a process that ends leaves its inbox behind. */
export interface EndingInboxes {
  /** Removes the inboxes made before `epochMs`; returns how many. A process whose inbox is removed makes another. */
  removeMadeBefore(epochMs: number): Promise<number>;
}
