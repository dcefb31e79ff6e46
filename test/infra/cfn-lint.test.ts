import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../infra/app.ts';
import { nestedTemplatesOf } from '../../local/synthesize.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

describe('cfn-lint', () => {
  it("finds no errors in the synthesized template or in any model's nested stack", () => {
    const { app, stack } = buildApp({ bundle: false });
    const dir = mkdtempSync(path.join(tmpdir(), 'prognoz-cfn-'));
    const files = [
      ['Prognoz', app.synth().getStackArtifact(stack.artifactId).template as unknown] as const,
      ...nestedTemplatesOf(app, stack),
    ].map(([name, template]) => {
      const file = path.join(dir, `${name}.template.json`);
      writeFileSync(file, JSON.stringify(template));
      return file;
    });
    expect(files.length).toBeGreaterThan(1);
    try {
      // Exit code bits: 2 errors, 4 warnings, 8 informational. Only errors fail.
      let code = 0;
      let output = '';
      try {
        output = execFileSync(path.join(ROOT, '.venv', 'bin', 'cfn-lint'), ['--format', 'parseable', ...files], {
          encoding: 'utf8',
        });
      } catch (error) {
        const failure = error as { status: number; stdout: string };
        code = failure.status;
        output = failure.stdout;
      }
      const errors = output.split('\n').filter((line) => /:E\d{4}:/.test(line));
      expect(errors).toEqual([]);
      expect(code & 2).toBe(0);
      expect(code & 1, output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
