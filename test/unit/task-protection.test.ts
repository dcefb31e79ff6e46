import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ecsAgentTaskProtection,
  noTaskProtection,
  taskProtectionOf,
} from '../../shared/adapters/ecs-task-protection.ts';
import { scaleInGuard } from '../../worker/scale-in-guard.ts';
import { closeServer } from '../../local/close-server.ts';

const TASK_ARN = 'arn:aws:ecs:eu-west-1:111122223333:task/prognoz-echo/0123456789abcdef0';
const CONTAINER_ID = '0123456789abcdef0-1234567890';

/** What the agent's endpoint may do instead of protecting (AWS's documented answers). */
type Mode = 'protects' | 'task-not-valid' | 'access-denied' | 'timed-out' | 'silent';

/**
 * A stand-in for the ECS agent's task scale-in protection endpoint (only an ECS instance has the
 * real one), answering as AWS documents it and as the agent's handler does: a PUT of
 * `{ProtectionEnabled, ExpiresInMinutes?}` sets the task's protection (1 to 2,880 minutes, 120 by
 * default) and answers `{protection}`; unknown fields or no `ProtectionEnabled` are a 400 error;
 * ECS's refusals come as `{failure}` with 200, its errors as `{error}` with their status.
 */
class FakeEcsAgent {
  mode: Mode = 'protects';
  readonly puts: unknown[] = [];
  protection: { enabled: boolean; expiresAtMs: number | null } = { enabled: false, expiresAtMs: null };
  private server: Server | null = null;
  uri = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.answer(req).then(({ status, body }) =>
        status === 0
          ? undefined
          : res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      );
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.uri = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/${CONTAINER_ID}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await closeServer(server);
  }

  private view() {
    return {
      protection: {
        ExpirationDate:
          this.protection.expiresAtMs === null ? null : new Date(this.protection.expiresAtMs).toISOString(),
        ProtectionEnabled: this.protection.enabled,
        TaskArn: TASK_ARN,
      },
    };
  }

  private async answer(req: IncomingMessage): Promise<{ status: number; body: unknown }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.url !== `/api/${CONTAINER_ID}/task-protection/v1/state`) return { status: 404, body: {} };
    if (req.method === 'GET') return { status: 200, body: this.view() };
    if (req.method !== 'PUT') return { status: 405, body: {} };
    const invalid = (message: string) => ({
      status: 400,
      body: { error: { Arn: TASK_ARN, Code: 'InvalidParameterException', Message: message } },
    });
    let request: Record<string, unknown>;
    try {
      request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      return invalid('UpdateTaskProtection: failed to decode request');
    }
    if (Object.keys(request).some((key) => key !== 'ProtectionEnabled' && key !== 'ExpiresInMinutes'))
      return invalid('UpdateTaskProtection: failed to decode request');
    if (typeof request.ProtectionEnabled !== 'boolean')
      return invalid("Invalid request: does not contain 'ProtectionEnabled' field");
    const minutes = request.ExpiresInMinutes ?? 120;
    if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 1 || minutes > 2880)
      return invalid('expiresInMinutes must be between 1 and 2880');
    this.puts.push(request);
    switch (this.mode) {
      case 'silent':
        return { status: 0, body: null };
      case 'task-not-valid':
        return { status: 200, body: { failure: { Arn: TASK_ARN, Detail: null, Reason: 'TASK_NOT_VALID' } } };
      case 'access-denied':
        return {
          status: 400,
          body: {
            requestID: '12345-abc-6789-0123-abc',
            error: {
              Arn: TASK_ARN,
              Code: 'AccessDeniedException',
              Message: 'User is not authorized to perform: ecs:UpdateTaskProtection',
            },
          },
        };
      case 'timed-out':
        return {
          status: 504,
          body: {
            error: { Arn: TASK_ARN, Code: 'RequestCanceled', Message: 'Timed out calling ECS Task Protection API' },
          },
        };
      case 'protects':
        this.protection = request.ProtectionEnabled
          ? { enabled: true, expiresAtMs: Date.now() + minutes * 60_000 }
          : { enabled: false, expiresAtMs: null };
        return { status: 200, body: this.view() };
    }
  }
}

const agent = new FakeEcsAgent();
beforeAll(() => agent.start());
afterAll(() => agent.stop());
beforeEach(() => {
  agent.mode = 'protects';
  agent.puts.length = 0;
  agent.protection = { enabled: false, expiresAtMs: null };
});

describe("the ECS agent's task scale-in protection endpoint", () => {
  it('protects the task for the minutes asked, and releases it', async () => {
    const protection = ecsAgentTaskProtection(agent.uri);

    await protection.protect(22);
    expect(agent.puts).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 22 }]);
    expect(agent.protection.enabled).toBe(true);
    const state = (await (await fetch(`${agent.uri}/task-protection/v1/state`)).json()) as {
      protection: { ProtectionEnabled: boolean; ExpirationDate: string };
    };
    expect(state.protection.ProtectionEnabled).toBe(true);
    expect(Date.parse(state.protection.ExpirationDate)).toBeGreaterThan(Date.now() + 21 * 60_000);

    await protection.release();
    expect(agent.puts[1]).toEqual({ ProtectionEnabled: false });
    expect(agent.protection).toEqual({ enabled: false, expiresAtMs: null });
  });

  it('asks for whole minutes within what ECS grants (1 to 2,880)', async () => {
    const protection = ecsAgentTaskProtection(agent.uri);
    await protection.protect(10_000);
    await protection.protect(0.25);
    expect(agent.puts).toEqual([
      { ProtectionEnabled: true, ExpiresInMinutes: 2880 },
      { ProtectionEnabled: true, ExpiresInMinutes: 1 },
    ]);
  });

  it("rejects with ECS's reason when ECS refuses, errs, or the agent cannot be reached", async () => {
    const protection = ecsAgentTaskProtection(agent.uri);
    agent.mode = 'task-not-valid';
    await expect(protection.protect(5)).rejects.toThrow(/TASK_NOT_VALID/);
    agent.mode = 'access-denied';
    await expect(protection.protect(5)).rejects.toThrow(/400: AccessDeniedException/);
    agent.mode = 'timed-out';
    await expect(protection.release()).rejects.toThrow(/504: RequestCanceled/);
    await expect(ecsAgentTaskProtection('http://127.0.0.1:1/api/x').protect(5)).rejects.toThrow();
    expect(agent.protection.enabled).toBe(false);
  });

  it('is off where no agent runs (the local runtime), and says so once', async () => {
    const said: string[] = [];
    const protection = taskProtectionOf(undefined, (line) => said.push(line));
    expect(protection).toBe(noTaskProtection);
    await protection.protect(5);
    await protection.release();
    expect(said).toEqual(['no ECS agent (ECS_AGENT_URI is not set): task scale-in protection is off']);
    expect(agent.puts).toEqual([]);
  });
});

describe('a worker keeps its task from scale-in while it runs anything', () => {
  const minute = 60_000;
  const setup = (runSeconds = 900) => {
    let nowMs = Date.UTC(2026, 10, 25, 12, 0, 0);
    const warnings: { message: string; fields: Record<string, unknown> }[] = [];
    const guard = scaleInGuard({
      protection: ecsAgentTaskProtection(agent.uri),
      runSeconds,
      clock: { now: () => nowMs },
      warn: (message, fields) => warnings.push({ message, fields }),
    });
    return { guard, warnings, advance: (ms: number) => (nowMs += ms) };
  };

  it("protects the task when an idle worker's first job is claimed, for the run limit and a margin, and releases it when the last job ends", async () => {
    const { guard, warnings } = setup(900);

    await guard.jobStarted();
    // 15 minutes of run limit, 2 of margin, and 5 for the jobs that follow.
    expect(agent.puts).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 22 }]);
    expect(agent.protection.enabled).toBe(true);

    await guard.jobEnded();
    expect(agent.puts.at(-1)).toEqual({ ProtectionEnabled: false });
    expect(agent.protection.enabled).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('keeps the protection while any job runs, and renews it only when a later job would outlast it', async () => {
    const { guard, advance } = setup(900);
    await guard.jobStarted();
    advance(3 * minute);
    await guard.jobStarted(); // needs 17 more minutes: the 22 asked 3 minutes ago cover it
    expect(agent.puts).toHaveLength(1);

    advance(3 * minute);
    await guard.jobEnded();
    await guard.jobStarted(); // needs until minute 23: beyond the first protection
    expect(agent.puts).toEqual([
      { ProtectionEnabled: true, ExpiresInMinutes: 22 },
      { ProtectionEnabled: true, ExpiresInMinutes: 22 },
    ]);

    await guard.jobEnded();
    expect(agent.protection.enabled).toBe(true);
    await guard.jobEnded();
    expect(agent.puts.at(-1)).toEqual({ ProtectionEnabled: false });
    expect(agent.protection.enabled).toBe(false);
  });

  it('asks for no more than ECS grants for a model whose runs may be longer', async () => {
    const { guard } = setup(60 * 60 * 72);
    await guard.jobStarted();
    expect(agent.puts).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 2880 }]);
  });

  it('runs the job when the agent fails, warns, and protects the task with the next job once the agent is back', async () => {
    const { guard, warnings } = setup(900);
    agent.mode = 'access-denied';

    expect(await guard.protecting(() => Promise.resolve('ran'))).toBe('ran');
    // Another job, awaited this time: its calls come after those of the first.
    await guard.jobStarted();
    await guard.jobEnded();
    expect(warnings.map((warning) => warning.message)).toContain(
      'task scale-in protection: protecting the task failed',
    );
    expect(String(warnings[0]?.fields.error)).toMatch(/AccessDeniedException/);
    expect(agent.protection.enabled).toBe(false);

    agent.mode = 'protects';
    await guard.jobStarted();
    expect(agent.protection.enabled).toBe(true);
  });

  it('runs the job without waiting for an agent that does not answer', async () => {
    const { guard } = setup(900);
    agent.mode = 'silent';
    expect(await guard.protecting(() => Promise.resolve('ran anyway'))).toBe('ran anyway');
    await vi.waitFor(() => expect(agent.puts).toEqual([{ ProtectionEnabled: true, ExpiresInMinutes: 22 }]));
  });
});
