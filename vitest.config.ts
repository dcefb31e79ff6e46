import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/temporary-folder.ts'],
    projects: [
      {
        test: {
          // The fast stage (`npm run test:unit`): the domain, the use cases against the in-memory
          // adapters, and every adapter's contract (the DynamoDB, S3 and SQS ones over emulators).
          name: 'unit',
          include: ['test/unit/**/*.test.ts', 'test/contract/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // Assertions on the synthesized stacks: each synthesizes the CDK app, which takes a while.
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/support/global-setup.ts'],
          // The suites share one local runtime, and some kill its processes: one file at a time.
          fileParallelism: false,
          testTimeout: 90_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
