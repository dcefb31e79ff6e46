import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { MODEL_ENTRYPOINT_SCRIPT, WITHHELD_FROM_MODELS } from '../../infra/cog/model-entrypoint.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'prognoz-entrypoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// The very bytes the generated Dockerfile writes into the image. The image runs them with its
// static BusyBox sh (the ENTRYPOINT names it); here the machine's POSIX sh stands in for it.
const entrypoint = path.join(dir, 'model-entrypoint');
writeFileSync(entrypoint, MODEL_ENTRYPOINT_SCRIPT);
const SH = '/bin/sh';
/** The interpreter itself (a launcher such as pyenv's shim would rewrite PATH on its way). */
const PYTHON = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).stdout.trim();

/**
 * What a container of an ECS task can be given that reaches the task role or the agent: what the
 * agent injects (credentials, task protection, metadata) and what the AWS SDKs read as credentials.
 */
const AWS_AND_ECS_VARIABLES = [
  'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
  'AWS_CONTAINER_CREDENTIALS_FULL_URI',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN',
  'AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE',
  'ECS_AGENT_URI',
  'ECS_CONTAINER_METADATA_URI',
  'ECS_CONTAINER_METADATA_URI_V4',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AWS_WEB_IDENTITY_TOKEN_FILE',
  'AWS_ROLE_ARN',
  'AWS_PROFILE',
];
const withheld = [...new Set([...AWS_AND_ECS_VARIABLES, ...WITHHELD_FROM_MODELS])];
const secretOf = (name: string) => `secret-${name.toLowerCase()}`;
const ecsEnvironment = Object.fromEntries(withheld.map((name) => [name, secretOf(name)]));

/** What the image's ENV and the task definition give the model server, which it must keep. */
const modelEnvironment = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  PORT: '5000',
  COG_MAX_CONCURRENCY: '2',
  COG_PREDICT_TYPE_STUB: 'predict.py:Predictor',
  AWS_REGION: 'eu-central-1',
  ODD_VALUE: 'two\nlines and "quotes" $HOME *',
};

/**
 * Stands in for coglet: prints its PID, its arguments, and its environment twice — as Python sees
 * it and as the kernel keeps it for /proc (what /proc/1/environ shows of the model server).
 */
const STAND_IN = [
  'import json, os, sys',
  "environ = open('/proc/self/environ', 'rb').read().split(b'\\0')",
  "print(json.dumps({'pid': os.getpid(), 'argv': sys.argv[1:], 'env': dict(os.environ), 'proc': [e.decode() for e in environ if e]}))",
].join('\n');

interface Seen {
  readonly pid: number;
  readonly argv: string[];
  readonly env: Record<string, string>;
  readonly proc: string[];
}

describe("the model image's entrypoint", () => {
  const args = ['--host', '0.0.0.0', 'a b', '', '*', '$HOME', '--', "it's"];
  const run = spawnSync(SH, [entrypoint, PYTHON, '-c', STAND_IN, ...args], {
    env: { ...modelEnvironment, ...ecsEnvironment },
    encoding: 'utf8',
  });
  const seen = JSON.parse(run.stdout) as Seen;

  it('hands coglet none of the credentials and agent endpoints ECS injects, not even in /proc/self/environ', () => {
    expect(run.status, run.stderr).toBe(0);
    for (const name of withheld) {
      expect(seen.env, name).not.toHaveProperty(name);
      expect(
        seen.proc.some((entry) => entry.startsWith(`${name}=`)),
        name,
      ).toBe(false);
    }
    expect(run.stdout).not.toContain('secret-');
  });

  it('keeps everything else as it was', () => {
    expect(seen.env).toMatchObject(modelEnvironment);
    expect(seen.proc).toEqual(expect.arrayContaining(Object.entries(modelEnvironment).map(([k, v]) => `${k}=${v}`)));
  });

  it('passes the arguments through as they were given: no splitting, globbing or expansion', () => {
    expect(seen.argv).toEqual(args);
  });

  it('becomes coglet (exec): the same process, so no shell stays behind holding them', () => {
    expect(seen.pid).toBe(run.pid);
  });

  it("ends with coglet's exit status", () => {
    const failed = spawnSync(SH, [entrypoint, PYTHON, '-c', 'import sys; sys.exit(3)'], { env: modelEnvironment });
    expect(failed.status).toBe(3);
  });

  it('refuses to start with no command rather than exit as if coglet had', () => {
    const empty = spawnSync(SH, [entrypoint], { env: { ...modelEnvironment, ...ecsEnvironment }, encoding: 'utf8' });
    expect(empty.status).toBe(64);
    expect(empty.stderr).toContain('no command to run');
  });

  it("delivers a stop signal to coglet's own handler (the drain ECS starts with SIGTERM)", async () => {
    const handler = [
      'import os, signal, sys',
      // os.write, not print: the signal can land while print of the PID is still inside stdout's
      // buffered writer (the test reads the line before print returns), and a second print
      // there fails as a reentrant call.
      "signal.signal(signal.SIGTERM, lambda *_: (os.write(1, b'terminated\\n'), sys.exit(0)))",
      'print(os.getpid(), flush=True)',
      'signal.pause()',
    ].join('\n');
    const child = spawn(SH, [entrypoint, PYTHON, '-c', handler], { env: modelEnvironment });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const pid = Number((await lines.next()).value);
    if (pid !== child.pid) {
      // Not exec'd: a shell in between would swallow the signal; stop both rather than wait.
      process.kill(pid, 'SIGKILL');
      child.kill('SIGKILL');
    }
    expect(pid).toBe(child.pid);
    child.kill('SIGTERM');
    expect((await lines.next()).value).toBe('terminated');
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    // Python's start is slow on a busy machine; the signal itself is not timed.
  }, 30_000);
});
