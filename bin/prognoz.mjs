#!/usr/bin/env node
// `npx prognoz …`: runs the admin command line (cli/prognoz.ts) on the project's own Node.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const node = path.join(root, 'node_modules', '.bin', 'node');
const result = spawnSync(node, ['--import', 'tsx', path.join(root, 'cli', 'prognoz.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: process.cwd(),
});
process.exit(result.status ?? 1);
