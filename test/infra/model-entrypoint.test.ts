import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MODEL_ENTRYPOINT_SCRIPT, WITHHELD_FROM_MODELS } from '../../infra/cog/dockerfile.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'prognoz-entrypoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const entrypoint = path.join(dir, 'prognoz-model-entrypoint');
// The very bytes the generated Dockerfile writes into the image.
writeFileSync(entrypoint, MODEL_ENTRYPOINT_SCRIPT);
chmodSync(entrypoint, 0o755);

/** What ECS gives every container of a task, the model server's included. */
const ecsEnvironment = Object.fromEntries(WITHHELD_FROM_MODELS.map((name) => [name, `secret-${name.toLowerCase()}`]));

/** Stands in for coglet: prints its PID, its arguments, and its environment as the kernel has it. */
const STAND_IN = [
  'import json, os, sys',
  "environ = open('/proc/self/environ', 'rb').read().split(b'\\0')",
  "print(json.dumps({'pid': os.getpid(), 'argv': sys.argv[1:], 'env': dict(os.environ), 'proc': [e.decode() for e in environ if e]}))",
].join('\n');

describe("the model image's entrypoint", () => {
  const run = spawnSync(entrypoint, ['python3', '-c', STAND_IN, '--host', '0.0.0.0', 'a b'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PORT: '5000', COG_MAX_CONCURRENCY: '2', ...ecsEnvironment },
    encoding: 'utf8',
  });
  const seen = JSON.parse(run.stdout) as { pid: number; argv: string[]; env: Record<string, string>; proc: string[] };

  it('hands coglet none of the credentials and agent endpoints ECS injects, not even in /proc/self/environ', () => {
    expect(run.status).toBe(0);
    for (const name of WITHHELD_FROM_MODELS) {
      expect(seen.env, name).not.toHaveProperty(name);
      expect(
        seen.proc.some((entry) => entry.startsWith(`${name}=`)),
        name,
      ).toBe(false);
    }
    expect(JSON.stringify(seen)).not.toContain('secret-');
  });

  it('keeps everything else, and the arguments as given', () => {
    expect(seen.env).toMatchObject({ PORT: '5000', COG_MAX_CONCURRENCY: '2' });
    expect(seen.argv).toEqual(['--host', '0.0.0.0', 'a b']);
  });

  it('becomes coglet (exec): the same process, so no shell stays behind holding them', () => {
    expect(seen.pid).toBe(run.pid);
  });
});
