import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import {
  keepRunsMinutes,
  MODEL_ENTRYPOINT_ENV,
  MODEL_ENTRYPOINT_SCRIPT,
  WITHHELD_FROM_MODELS,
} from '../../infra/cog/model-entrypoint.ts';

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

/**
 * Stands in for coglet beside the pruner: waits until the folder argv[2] of the runs folder argv[1]
 * is gone (or argv[3] seconds have passed), then prints what it found — the folders still there,
 * its own environment, and each of its child processes (the pruner) with what /proc keeps of its
 * environment.
 */
const PRUNED_STAND_IN = [
  'import json, os, sys, time',
  'runs, gone, patience = sys.argv[1], sys.argv[2], float(sys.argv[3])',
  'deadline = time.monotonic() + patience',
  'while os.path.exists(os.path.join(runs, gone)) and time.monotonic() < deadline: time.sleep(0.1)',
  'children = []',
  "for pid in filter(str.isdigit, os.listdir('/proc')):",
  '    try:',
  "        stat = open(f'/proc/{pid}/stat').read()",
  "        if int(stat.rsplit(')', 1)[1].split()[1]) != os.getpid(): continue",
  "        environ = open(f'/proc/{pid}/environ', 'rb').read().split(b'\\0')",
  "        children.append({'pid': int(pid), 'env': [e.decode() for e in environ if e]})",
  '    except (FileNotFoundError, ProcessLookupError): pass',
  "print(json.dumps({'left': sorted(os.listdir(runs)), 'children': children, 'env': dict(os.environ)}))",
].join('\n');

describe("the model image's entrypoint, of coglet's run folders", () => {
  const HOUR_AGO = (Date.now() - 3_600_000) / 1000;
  const runsOf = (name: string) => {
    const runs = path.join(dir, name);
    // As coglet leaves them: a folder per run, its inputs and the files the run returned.
    for (const run of ['ended-an-hour-ago', 'running']) {
      mkdirSync(path.join(runs, run, 'outputs'), { recursive: true });
      mkdirSync(path.join(runs, run, 'inputs'), { recursive: true });
      writeFileSync(path.join(runs, run, 'outputs', 'out.png'), 'png');
    }
    utimesSync(path.join(runs, 'ended-an-hour-ago'), HOUR_AGO, HOUR_AGO);
    return runs;
  };
  interface SeenBesidePruner {
    readonly left: string[];
    readonly children: { pid: number; env: string[] }[];
    readonly env: Record<string, string>;
  }
  /** Runs the entrypoint over a new runs folder, pruning every second, and the stand-in as coglet. */
  const runPruned = (name: string, keep = '30', patienceSeconds = 30) => {
    const runs = runsOf(name);
    const run = spawnSync(
      SH,
      [entrypoint, PYTHON, '-c', PRUNED_STAND_IN, runs, 'ended-an-hour-ago', String(patienceSeconds)],
      {
        env: {
          ...modelEnvironment,
          ...ecsEnvironment,
          [MODEL_ENTRYPOINT_ENV.keepRunsMinutes]: keep,
          [MODEL_ENTRYPOINT_ENV.pruneEverySeconds]: '1',
          [MODEL_ENTRYPOINT_ENV.runsDir]: runs,
        },
        encoding: 'utf8',
      },
    );
    return { runs, run, seen: JSON.parse(run.stdout) as SeenBesidePruner };
  };

  it('removes the folders of runs older than a run can last, with what they hold, and keeps the others', () => {
    const { runs, run, seen } = runPruned('pruned');
    expect(run.status, run.stderr).toBe(0);
    expect(seen.left).toEqual(['running']);
    // Its settings were the entrypoint's: coglet is not given them.
    for (const name of Object.values(MODEL_ENTRYPOINT_ENV)) expect(seen.env, name).not.toHaveProperty(name);
    expect(existsSync(path.join(runs, 'running', 'outputs', 'out.png'))).toBe(true);
  });

  it('prunes from a process of its own that never had the credentials, not even in /proc/<pid>/environ', () => {
    const { seen } = runPruned('environ');
    // The pruner is coglet's child once the entrypoint has become coglet.
    expect(seen.children.length).toBeGreaterThan(0);
    for (const child of seen.children) {
      for (const name of withheld)
        expect(
          child.env.some((entry) => entry.startsWith(`${name}=`)),
          name,
        ).toBe(false);
    }
  });

  it('stops pruning once coglet has ended', async () => {
    const { seen } = runPruned('after');
    const alive = (pid: number) => existsSync(`/proc/${pid}`);
    // It looks every second: gone within a few.
    for (let wait = 0; wait < 50 && seen.children.some((child) => alive(child.pid)); wait++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seen.children.filter((child) => alive(child.pid))).toEqual([]);
  }, 30_000);

  it('starts no pruner where no age is given, and removes nothing', () => {
    // With no pruner, the stand-in gives up waiting after 2 s.
    const { seen } = runPruned('unset', '', 2);
    expect(seen.children).toEqual([]);
    expect(seen.left).toEqual(['ended-an-hour-ago', 'running']);
  }, 30_000);

  it('keeps a folder as long as the longest run and the ten minutes a cancel may take', () => {
    expect(keepRunsMinutes(900)).toBe(25);
    expect(keepRunsMinutes(3600)).toBe(70);
    expect(keepRunsMinutes(61)).toBe(12);
  });
});
