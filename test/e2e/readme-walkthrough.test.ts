import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { pollUntil, runtime } from '../support/api.ts';
import { receiverForFile } from '../support/receiver.ts';

/**
 * The README's walk-through, its shell block read from the file and run as written against the
 * suites' runtime: only the three lines a reader fills in (the token, the address, the webhook)
 * are given this runtime's values. Each step's answer must have the shape its comment says.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const runFile = promisify(execFile);
const receiver = receiverForFile();

const block = (): string => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const found = /^## Walk-through\n[\s\S]*?```sh\n([\s\S]*?)```/m.exec(readme);
  if (!found?.[1]) throw new Error('README.md has no walk-through block');
  return found[1];
};

/** The block with a marker echoed after each step (a comment starts one), and the reader's three values filled in. */
const runnable = (text: string, values: { token: string; api: string; webhook: string }): string =>
  text
    .replace(/^export PROGNOZ_API_TOKEN=.*$/m, `export PROGNOZ_API_TOKEN=${values.token}`)
    .replace(/^API=.*$/m, `API=${values.api}`)
    .replace(/^WEBHOOK=.*$/m, `WEBHOOK=${values.webhook}`)
    .split('\n')
    .map((line) => (line.startsWith('# ') ? `echo; echo '@@ ${line.slice(2).replace(/'/g, '')}'\n${line}` : line))
    .join('\n');

describe("the README's walk-through", () => {
  it('runs as written, each answer in the shape its comment gives', async () => {
    const text = block();
    const values = {
      token: runtime().apiToken,
      api: runtime().apiUrl.replace(/\/$/, ''),
      webhook: `${receiver().url}/walkthrough`,
    };
    for (const line of ['export PROGNOZ_API_TOKEN=', 'API=', 'WEBHOOK='])
      expect(text, `the block sets ${line}`).toMatch(new RegExp(`^${line}`, 'm'));
    const { stdout } = await runFile('bash', ['-euo', 'pipefail', '-c', runnable(text, values)], { cwd: ROOT });
    const steps = stdout
      .split('\n@@ ')
      .slice(1)
      .map((step) => {
        const [title = '', ...rest] = step.split('\n');
        const body = rest.join('\n').trim();
        return {
          title,
          answers: body === '' ? [] : body.split('\n').map((line) => JSON.parse(line) as PredictionView),
        };
      });
    expect(steps.map((step) => step.title.split(':')[0])).toEqual([
      'Create',
      'Poll',
      'Wait for it instead',
      'Cancel',
      'A webhook',
    ]);
    const [create, poll, wait, cancel, webhook] = steps;
    expect(create?.answers).toEqual([]);
    const [polled] = poll?.answers ?? [];
    expect(polled).toMatchObject({
      model: 'prognoz/echo',
      input: { text: 'привет', sleep: 2, repeat: 1, fail: false },
    });
    expect(['starting', 'queued', 'processing', 'succeeded']).toContain(polled?.status);
    expect(wait?.answers[0]).toMatchObject({ status: 'succeeded', output: { text: 'sync' } });
    expect(cancel?.answers[0]).toMatchObject({ status: 'canceled' });
    const hooked = webhook?.answers[0];
    expect(hooked).toMatchObject({ status: 'starting', webhook: values.webhook });
    // And the webhook comes.
    await pollUntil(hooked?.id ?? '', () => receiver().accepted(hooked?.id ?? '').length > 0, 30_000);
  }, 120_000);
});
