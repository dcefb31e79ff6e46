import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Every temporary folder a test run makes — the CDK's cloud assemblies (tens of MB each), the
 * local runtime's files, what a test forgets — is made inside one (TMPDIR, which the test
 * processes and what they start inherit), and that one is removed when the run ends.
 */
export default function setup() {
  const previous = process.env.TMPDIR;
  const folder = mkdtempSync(path.join(tmpdir(), 'prognoz-test-run-'));
  process.env.TMPDIR = folder;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(folder, { recursive: true, force: true });
  };
}
