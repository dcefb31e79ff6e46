import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { DEFAULT_DOWNLOAD_LIMITS, downloadToFile } from '../../shared/adapters/guarded-download.ts';
import { CogCallbacks } from '../../worker/cog-callbacks.ts';
import { folderRunInputs } from '../../worker/run-inputs.ts';
import { fileHostForFile } from '../support/file-host.ts';
import { inMemoryRunInputs } from '../support/in-memory/run-inputs.ts';
import { describeRunInputsContract, HOSTED_TEXT, INPUTS_MODEL } from './run-inputs.contract.ts';

const origin = fileHostForFile(
  Object.fromEntries(
    Object.entries(HOSTED_TEXT).map(([name, body]) => [`/${name}`, { contentType: 'application/octet-stream', body }]),
  ),
);
const root = mkdtempSync(path.join(tmpdir(), 'prognoz-run-inputs-contract-'));
const callbacks = new CogCallbacks();
let listening: Promise<string> | undefined;
afterAll(async () => {
  await callbacks.close();
  rmSync(root, { recursive: true, force: true });
});

describeRunInputsContract("the worker's folders, served over HTTP", async () => {
  listening ??= callbacks.listen(0);
  await listening;
  return {
    inputs: folderRunInputs({
      dir: root,
      model: INPUTS_MODEL,
      download: (url, file, signal) =>
        downloadToFile(url, file, { allowLoopback: true }, DEFAULT_DOWNLOAD_LIMITS, signal),
      share: (folder) => callbacks.shareInputs(folder),
    }),
    hosted: (name) => `${origin()}/${name}`,
    read: async (address) => {
      const response = await fetch(address);
      return response.ok ? await response.text() : null;
    },
  };
});

describeRunInputsContract('in memory', () => {
  const inputs = inMemoryRunInputs(
    INPUTS_MODEL,
    Object.fromEntries(Object.entries(HOSTED_TEXT).map(([name, text]) => [`https://files.example/${name}`, text])),
  );
  return Promise.resolve({
    inputs,
    hosted: (name) => `https://files.example/${name}`,
    read: (address) => Promise.resolve(inputs.read(address)),
  });
});
