import { execFile } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateToken } from '../../shared/domain/tokens.ts';
import { call, createOtherAccount, getPrediction, runtime } from '../support/api.ts';
import { closeServer } from '../../local/close-server.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const STEPS = ['create and poll', 'synchronous create', 'event stream', 'cancel while running', 'signed webhook'];
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

interface SmokeRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Each step's line, by the step's name. */
  readonly lines: ReadonlyMap<string, string>;
}

/** `npm run smoke -- …` as a deployer runs it, against the test runtime. */
const smoke = (...args: string[]): Promise<SmokeRun> =>
  new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'smoke', '--', '--base-url', runtime().apiUrl, ...args],
      { cwd: ROOT, env: { ...process.env, PROGNOZ_API_TOKEN: '' }, timeout: 80_000 },
      (error, stdout, stderr) => {
        const lines = new Map(
          STEPS.flatMap((name) => {
            const line = stdout.split('\n').find((l) => new RegExp(`^(PASS|FAIL|SKIP)  ${name}  `).test(l));
            return line === undefined ? [] : [[name, line] as const];
          }),
        );
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr, lines });
      },
    );
  });

/** The prediction id a step's line names. */
const idIn = (line: string | undefined): string => new RegExp(UUID).exec(line ?? '')?.[0] ?? '';

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

describe('npm run smoke', () => {
  it('passes every step against the local runtime, and each step did what its line says', async () => {
    const token = await createOtherAccount();

    const run = await smoke('--token', token);

    expect(run.code, run.stdout + run.stderr).toBe(0);
    for (const name of STEPS) expect(run.lines.get(name), run.stdout).toMatch(new RegExp(`^PASS  ${name}  `));
    expect(run.stdout).toContain('5 passed, 0 failed');
    // Latencies, and the service's own figures of the predictions.
    expect(run.lines.get('create and poll')).toMatch(
      /create answered in [\d.]+ m?s, succeeded after [\d.]+ m?s, runtime /,
    );
    expect(run.lines.get('synchronous create')).toMatch(/answered in [\d.]+ m?s, runtime [\d.]+ s/);

    // The predictions are real, this account's, and ended as the steps say.
    const as = { token };
    for (const name of ['create and poll', 'synchronous create', 'event stream', 'signed webhook'])
      expect((await getPrediction(idIn(run.lines.get(name)), as)).json).toMatchObject({ status: 'succeeded' });
    const canceled = (await getPrediction(idIn(run.lines.get('cancel while running')), as)).json;
    expect(canceled).toMatchObject({ status: 'canceled', input: { sleep: 60 } });
    expect(canceled.started_at).not.toBeNull();
    const webhook = idIn(run.lines.get('signed webhook'));
    const { json: log } = await call<{ webhook: string; attempts: { outcome: string; status_code: number }[] }>(
      `predictions/${webhook}/webhooks`,
      as,
    );
    expect(log.webhook).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/smoke$/);
    expect(log.attempts[0]).toMatchObject({ outcome: 'delivered', status_code: 204 });
  });

  it('receives the webhook at the address given (as through a tunnel) on the port it was told', async () => {
    const token = await createOtherAccount();
    const port = await freePort();
    const address = `http://localhost:${port}/through-the-tunnel`;

    const run = await smoke('--token', token, '--webhook-url', address, '--listen', String(port));

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.lines.get('signed webhook')).toMatch(/^PASS  signed webhook  .* verified with the account's secret/);
    const { json: log } = await call<{ webhook: string }>(
      `predictions/${idIn(run.lines.get('signed webhook'))}/webhooks`,
      { token },
    );
    expect(log.webhook).toBe(address);
  });

  it('fails the webhook step when the delivery does not verify: a tunnel that rewrites the body on the way', async () => {
    const token = await createOtherAccount();
    const receiverPort = await freePort();
    // A real proxy in front of the smoke's receiver that re-serializes the JSON it passes on.
    const tunnel = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = JSON.stringify(JSON.parse(Buffer.concat(chunks).toString('utf8')), null, 2);
        const headers = Object.fromEntries(
          Object.entries(req.headers).filter(([name]) => name.startsWith('x-webhook-') || name === 'content-type'),
        ) as Record<string, string>;
        fetch(`http://127.0.0.1:${receiverPort}/`, { method: 'POST', headers, body }).then(
          (forwarded) => res.writeHead(forwarded.status).end(),
          () => res.writeHead(502).end(),
        );
      });
    });
    await new Promise<void>((resolve) => tunnel.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = tunnel.address() as AddressInfo;
      const run = await smoke(
        '--token',
        token,
        '--webhook-url',
        `http://127.0.0.1:${port}/rewriting`,
        '--listen',
        String(receiverPort),
      );

      expect(run.code).toBe(1);
      expect(run.lines.get('signed webhook')).toMatch(
        new RegExp(
          `^FAIL  signed webhook  .*the delivery ${UUID}\\.succeeded does not verify: X-Webhook-SIGNATURE is not`,
        ),
      );
      expect(run.stdout).toContain('4 passed, 1 failed');
    } finally {
      await closeServer(tunnel);
    }
  });

  it('fails the webhook step when nothing arrives, with what the service’s delivery log says', async () => {
    const token = await createOtherAccount();
    const nobody = await freePort();

    const run = await smoke('--token', token, '--webhook-url', `http://127.0.0.1:${nobody}/gone`, '--timeout', '8');

    expect(run.code).toBe(1);
    expect(run.lines.get('signed webhook')).toMatch(
      new RegExp(
        `^FAIL  signed webhook  .*no webhook of ${UUID} reached http://127\\.0\\.0\\.1:${nobody}/gone \\(listening on 127\\.0\\.0\\.1:\\d+\\) in time; the service's last attempt \\(\\d, succeeded\\) got .+: (failed|dead_lettered)$`,
      ),
    );
  });

  it('fails every step with the status, error code and request id when the token is wrong, and exits 1', async () => {
    const run = await smoke('--token', generateToken());

    expect(run.code).toBe(1);
    for (const name of STEPS)
      expect(run.lines.get(name), run.stdout).toMatch(
        new RegExp(`^FAIL  ${name}  .*HTTP 401 invalid_token \\(request id [^)\\s]+\\): `),
      );
    expect(run.stdout).toContain('0 passed, 5 failed');
  });

  it('fails only the step whose check fails, saying why, and exits 1', async () => {
    const token = await createOtherAccount();

    // Past the echo model's longest sleep (300 s): the service refuses it.
    const run = await smoke('--token', token, '--busy-input', '{"text":"busy","sleep":301}');

    expect(run.code).toBe(1);
    expect(run.lines.get('cancel while running')).toMatch(
      /^FAIL  cancel while running  .*expected HTTP 201, got HTTP 422 invalid_input \(request id [^)\s]+\): .*sleep/,
    );
    for (const name of STEPS.filter((step) => step !== 'cancel while running'))
      expect(run.lines.get(name), run.stdout).toMatch(new RegExp(`^PASS  ${name}  `));
    expect(run.stdout).toContain('4 passed, 1 failed');
  });

  it('refuses a command line it cannot use, with its usage, exit 2', async () => {
    const run = await smoke('--token', 'x', '--model', 'no-slash', '--timeout', 'soon');

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--model must be OWNER/NAME');
    expect(run.stderr).toContain('--timeout is a whole number of seconds');
    expect(run.stderr).toContain('npm run smoke -- --base-url URL --token TOKEN');
    expect(run.lines.size).toBe(0);
  });
});
