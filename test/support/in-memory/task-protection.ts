import { MAX_PROTECTION_MINUTES, type TaskProtection } from '../../../shared/ports/task-protection.ts';
import { answer } from './answer.ts';

/** The task's scale-in protection in memory: until when it is protected (epoch ms), or null. */
export const inMemoryTaskProtection = (
  now: () => number = Date.now,
): TaskProtection & { protectedUntilMs(): number | null } => {
  let until: number | null = null;
  return {
    protect: (minutes) =>
      answer(() => {
        if (!(minutes >= 1 && minutes <= MAX_PROTECTION_MINUTES))
          throw new Error(`protection is 1 to ${MAX_PROTECTION_MINUTES} minutes, not ${minutes}`);
        until = now() + minutes * 60_000;
      }),
    release: () =>
      answer(() => {
        until = null;
      }),
    protectedUntilMs: () => (until !== null && until > now() ? until : null),
  };
};
