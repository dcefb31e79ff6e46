/** The longest protection ECS grants at once (48 hours); a longer job renews it. */
export const MAX_PROTECTION_MINUTES = 2880;

/**
 * The port to the orchestrator's protection of this task from scale-in (ECS task scale-in
 * protection): a task that runs a job must not be picked when the fleet shrinks.
 */
export interface TaskProtection {
  /** Protects the task for `minutes` (1 to MAX_PROTECTION_MINUTES) from now; a later call replaces the expiry. */
  protect(minutes: number): Promise<void>;
  /** Makes the task eligible for scale-in again. */
  release(): Promise<void>;
}
