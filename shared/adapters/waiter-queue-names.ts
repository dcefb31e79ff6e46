/** SQS allows a queue name of 80 characters: letters, digits, `-` and `_`. */
const MAX_QUEUE_NAME = 80;
/** What a name adds to its prefix: the time it was made (seconds, base 36, 6–7 characters), `-`, 12 hex digits. */
const SUFFIX_CHARS = 20;
export const MAX_WAITER_QUEUE_PREFIX = MAX_QUEUE_NAME - SUFFIX_CHARS;

const SUFFIX = /^([0-9a-z]{1,7})-([0-9a-f]{12})$/;

/**
 * The names of the waiter queues (the SQS inboxes of shared/ports/ending-notices.ts), one per
 * waiting process: `<stack>-waiter-<made at>-<random>`. IAM grants on the prefix; the time it was
 * made is in the name, so the sweeper finds the old ones from one ListQueues call, with no call per queue.
 */
export const WAITER_QUEUE_NAMES = {
  prefixOf: (stackName: string): string => {
    const prefix = `${stackName}-waiter-`;
    if (prefix.length > MAX_WAITER_QUEUE_PREFIX)
      throw new Error(
        `the waiter queues' prefix ${prefix} is longer than ${MAX_WAITER_QUEUE_PREFIX} characters: give the stack a shorter name`,
      );
    return prefix;
  },
  /** `random`: 12 hex digits. */
  nameOf: (prefix: string, madeAtMs: number, random: string): string => {
    const suffix = `${Math.floor(madeAtMs / 1000).toString(36)}-${random}`;
    if (!SUFFIX.test(suffix))
      throw new Error(`${suffix} is not a waiter queue's suffix (12 hex digits of random expected)`);
    return `${prefix}${suffix}`;
  },
  /** When the queue of this name was made (epoch ms, to the second); null for a name that is not a waiter queue's under `prefix`. */
  madeAtOf: (prefix: string, name: string): number | null => {
    if (!name.startsWith(prefix)) return null;
    const seconds = SUFFIX.exec(name.slice(prefix.length))?.[1];
    return seconds === undefined ? null : parseInt(seconds, 36) * 1000;
  },
  /** A queue's name from its URL (`https://sqs.<region>.amazonaws.com/<account>/<name>`). */
  nameOfUrl: (url: string): string => url.slice(url.lastIndexOf('/') + 1),
};
