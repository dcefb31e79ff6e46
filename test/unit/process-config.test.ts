import { describe, expect, it } from 'vitest';
import * as z from '../../shared/zod-mini.ts';
import { configureS3, s3 } from '../../shared/adapters/s3-client.ts';
import { API_ENV, apiConfigFromEnv } from '../../shared/config/api.ts';
import {
  defineEnvironment,
  orNull,
  readAs,
  SHARED,
  SHARED_ENV,
  VALUES,
  variable,
} from '../../shared/config/environment.ts';
import { settingsOf, variablesOf } from '../../shared/config/kinds.ts';
import { WORKER_ENV, workerConfigFromEnv } from '../../shared/config/worker.ts';
import { DEFAULT_RETENTION_SECONDS } from '../../shared/domain/retention.ts';

const example = defineEnvironment('example', {
  tableName: SHARED.tableName,
  retentionSeconds: SHARED.retentionSeconds,
  loopback: readAs(SHARED.allowLoopback, (allowLoopback) => ({ allowLoopback })),
  port: variable('PROGNOZ_EXAMPLE_PORT', z._default(VALUES.whole, 8080)),
  folder: variable('PROGNOZ_EXAMPLE_FOLDER', orNull(VALUES.name)),
});

describe('an environment defined once, by its variables', () => {
  it('names each variable by its field, and its schema by those names', () => {
    expect(example.names).toEqual({
      tableName: 'PROGNOZ_TABLE_NAME',
      retentionSeconds: 'PROGNOZ_RETENTION_DAYS',
      loopback: 'PROGNOZ_ALLOW_LOOPBACK',
      port: 'PROGNOZ_EXAMPLE_PORT',
      folder: 'PROGNOZ_EXAMPLE_FOLDER',
    });
    expect(Object.keys(example.schema.shape)).toEqual(Object.values(example.names));
  });

  it('parses into its fields, with their defaults and their values read on', () => {
    expect(example.parse({ PROGNOZ_TABLE_NAME: 'Table' })).toEqual({
      tableName: 'Table',
      retentionSeconds: DEFAULT_RETENTION_SECONDS,
      loopback: { allowLoopback: false },
      port: 8080,
      folder: null,
    });
    expect(
      example.parse({
        PROGNOZ_TABLE_NAME: 'Table',
        PROGNOZ_RETENTION_DAYS: '0.5',
        PROGNOZ_ALLOW_LOOPBACK: 'true',
        PROGNOZ_EXAMPLE_PORT: '1',
        PROGNOZ_EXAMPLE_FOLDER: '/data',
      }),
    ).toEqual({
      tableName: 'Table',
      retentionSeconds: 43_200,
      loopback: { allowLoopback: true },
      port: 1,
      folder: '/data',
    });
  });

  it('tells the process and each variable that is missing or malformed', () => {
    const parse = () => example.parse({ PROGNOZ_RETENTION_DAYS: 'a week' });
    expect(parse).toThrow("the example's environment is not valid");
    expect(parse).toThrow(/must be a number of days\n {2}→ at PROGNOZ_RETENTION_DAYS/);
    expect(parse).toThrow(/→ at PROGNOZ_TABLE_NAME/);
  });

  it('shares the variables several kinds of process read', () => {
    expect(API_ENV.tableName).toBe(SHARED_ENV.tableName);
    expect(API_ENV.addressPolicy).toBe(SHARED_ENV.allowLoopback);
    expect(WORKER_ENV.allowLoopback).toBe(SHARED_ENV.allowLoopback);
    expect(variablesOf('worker')).toContain(WORKER_ENV.s3PathStyle);
    expect(settingsOf('api')).toEqual([
      SHARED_ENV.retentionSeconds,
      SHARED_ENV.allowLoopback,
      API_ENV.ratePerSecond,
      API_ENV.fleetClusterPrefix,
    ]);
  });

  it('makes the configuration each process is given', () => {
    const env = {
      [API_ENV.tableName]: 'Table',
      [API_ENV.webhookQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/webhooks',
      [API_ENV.outputBucket]: 'bucket',
      [API_ENV.stateMachinePrefix]: 'arn:aws:states:eu-west-1:123456789012:stateMachine:Prognoz-',
      [API_ENV.waiterQueuePrefix]: 'Prognoz-waiter-',
      [WORKER_ENV.modelId]: 'acme/echo',
      [WORKER_ENV.queueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/acme-echo',
    };
    const api = apiConfigFromEnv(env, { find: (id) => (id === 'acme/echo' ? ({} as never) : undefined) });
    expect(api).toMatchObject({
      addressPolicy: { allowLoopback: false },
      ratePerSecond: 100,
      fleetClusterPrefix: null,
    });
    expect(api).not.toHaveProperty('stateMachinePrefix');
    expect(api.stateMachineArnOf('acme/echo')).toBe(
      'arn:aws:states:eu-west-1:123456789012:stateMachine:Prognoz-acme-echo',
    );
    expect(api.stateMachineArnOf('acme/other')).toBeUndefined();
    expect(workerConfigFromEnv(env)).toMatchObject({ s3PathStyle: false, inputsDir: null, ecsAgentUri: null });
    expect(workerConfigFromEnv({ ...env, [WORKER_ENV.s3PathStyle]: 'true' }).s3PathStyle).toBe(true);
  });
});

describe("the process's S3 client", () => {
  it('is made as its composition root configured it, which it cannot change once made', async () => {
    configureS3({ forcePathStyle: true });
    expect((await s3()).config.forcePathStyle).toBe(true);
    expect(() => configureS3({ forcePathStyle: true })).not.toThrow();
    expect(() => configureS3({ forcePathStyle: false })).toThrow(/after it was made/);
  });
});
