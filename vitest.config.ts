import { defineConfig } from 'vitest/config';

/** The end-to-end suites that use no shared runtime. */
const E2E_APART = [
  'test/e2e/brought-model-faults.test.ts',
  'test/e2e/data-folders.test.ts',
  'test/e2e/emulators-process.test.ts',
  'test/e2e/restart.test.ts',
  'test/e2e/runtime-killed.test.ts',
  'test/e2e/schemathesis.test.ts',
  'test/e2e/worker-drain.test.ts',
];

/**
 * What the e2e suites' shared runtime sets in the runner's own environment (its brought models'
 * catalog, the models it withholds) must not reach the suites that synthesize the stack or test
 * the catalog: they describe a deployment, which has neither.
 */
const NO_LOCAL_CATALOG = { PROGNOZ_MODEL_CATALOG: '', PROGNOZ_WITHHELD_MODELS: '' };

export default defineConfig({
  test: {
    globalSetup: ['test/support/temporary-folder.ts'],
    projects: [
      {
        test: {
          // The fast stage (`npm run test:unit`): the domain, the use cases against the in-memory
          // adapters, and every adapter's contract (the DynamoDB, S3 and SQS ones over emulators).
          name: 'unit',
          env: NO_LOCAL_CATALOG,
          include: ['test/unit/**/*.test.ts', 'test/contract/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // Assertions on the synthesized stacks: each synthesizes the CDK app, which takes a while.
          name: 'infra',
          env: NO_LOCAL_CATALOG,
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: E2E_APART,
          globalSetup: ['test/support/global-setup.ts'],
          // The suites share one local runtime, and some kill its processes: one file at a time.
          fileParallelism: false,
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // End-to-end suites that start what they need themselves (a runtime of their own, `npm
          // start`, the emulators alone): one at a time, without the shared runtime's global setup.
          name: 'e2e-apart',
          include: E2E_APART,
          fileParallelism: false,
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
