import * as z from 'zod';
import { MAX_PROTECTION_MINUTES, type TaskProtection } from '../ports/task-protection.ts';

/**
 * What the ECS agent's task scale-in protection endpoint answers (AWS's documented shape): the
 * task's protection; or, still with 200, a failure of ECS's UpdateTaskProtection (e.g.
 * `TASK_NOT_VALID`); or, with 4xx/5xx, an error (e.g. `AccessDeniedException`, `ThrottlingException`).
 */
const agentAnswer = z.object({
  protection: z
    .object({
      ProtectionEnabled: z.boolean(),
      ExpirationDate: z.string().nullish(),
      TaskArn: z.string().nullish(),
    })
    .optional(),
  failure: z
    .object({ Arn: z.string().nullish(), Reason: z.string().nullish(), Detail: z.string().nullish() })
    .optional(),
  error: z.object({ Arn: z.string().nullish(), Code: z.string(), Message: z.string() }).optional(),
});

/** The agent calls ECS for us; beyond this, the answer is not worth waiting for. */
const AGENT_CALL_MS = 10_000;

/** ExpiresInMinutes as ECS takes it: whole minutes, 1 to 2,880. */
const boundedMinutes = (minutes: number): number => Math.min(MAX_PROTECTION_MINUTES, Math.max(1, Math.ceil(minutes)));

/**
 * Task scale-in protection through the ECS agent's endpoint, `${ECS_AGENT_URI}/task-protection/v1/state`
 * (the agent calls ECS's UpdateTaskProtection with the task role: it needs `ecs:UpdateTaskProtection`).
 */
export const ecsAgentTaskProtection = (agentUri: string, fetchImpl: typeof fetch = fetch): TaskProtection => {
  const put = async (request: { ProtectionEnabled: boolean; ExpiresInMinutes?: number }): Promise<void> => {
    const response = await fetchImpl(`${agentUri}/task-protection/v1/state`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(AGENT_CALL_MS),
    });
    const text = await response.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON: told as it came, below.
    }
    const parsed = agentAnswer.safeParse(json);
    const answer = parsed.success ? parsed.data : {};
    if (answer.error) {
      throw new Error(`the ECS agent answered ${response.status}: ${answer.error.Code}: ${answer.error.Message}`);
    }
    if (answer.failure) {
      const detail = answer.failure.Detail ? ` (${answer.failure.Detail})` : '';
      throw new Error(`ECS refused the task protection: ${answer.failure.Reason ?? 'no reason given'}${detail}`);
    }
    if (!response.ok || answer.protection?.ProtectionEnabled !== request.ProtectionEnabled) {
      throw new Error(`the ECS agent answered ${response.status}: ${text.slice(0, 200)}`);
    }
  };
  return {
    protect: (minutes) => put({ ProtectionEnabled: true, ExpiresInMinutes: boundedMinutes(minutes) }),
    release: () => put({ ProtectionEnabled: false }),
  };
};

/** Where no ECS agent runs (the local runtime): nothing to protect the task from. */
export const noTaskProtection: TaskProtection = {
  protect: () => Promise.resolve(),
  release: () => Promise.resolve(),
};

/** The agent's protection when this runs in an ECS task (ECS_AGENT_URI set), else none, said once. */
export const taskProtectionOf = (agentUri: string | undefined, log: (message: string) => void): TaskProtection => {
  if (agentUri) return ecsAgentTaskProtection(agentUri);
  log('no ECS agent (ECS_AGENT_URI is not set): task scale-in protection is off');
  return noTaskProtection;
};
