import {
  CreateClusterCommand,
  CreateServiceCommand,
  DescribeServicesCommand,
  ECSClient,
  RegisterTaskDefinitionCommand,
} from '@aws-sdk/client-ecs';
import { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { startFauxqs } from 'fauxqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startCognitoEmulator } from '../../local/cognito-emulator.ts';
import { LOCAL_REGION } from '../../local/paths.ts';
import { ssmFleetDirectory } from '../../shared/adapters/ssm-fleet-control.ts';
import { ecsFleetServices } from '../../shared/adapters/ecs-fleet-control.ts';
import { sqsJobQueues } from '../../shared/adapters/sqs-fleet-control.ts';
import { nudgeFleets } from '../../shared/use-cases/nudge-fleets.ts';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

// The local runtime's emulators: moto's server (which the runtime starts for Cognito, and which
// serves every service moto emulates, ECS and Parameter Store among them) and fauxqs for SQS.
let moto: Awaited<ReturnType<typeof startCognitoEmulator>>;
let fauxqs: Awaited<ReturnType<typeof startFauxqs>>;
let ecs: ECSClient;
let sqs: SQSClient;
let ssm: SSMClient;

beforeAll(async () => {
  [moto, fauxqs] = await Promise.all([
    startCognitoEmulator(),
    startFauxqs({ port: 0, logger: false, defaultRegion: LOCAL_REGION }),
  ]);
  ecs = new ECSClient({ endpoint: moto.endpoint, region: LOCAL_REGION, credentials });
  sqs = new SQSClient({ endpoint: fauxqs.address, region: LOCAL_REGION, credentials, useQueueUrlAsEndpoint: false });
  ssm = new SSMClient({ endpoint: moto.endpoint, region: LOCAL_REGION, credentials });
}, 60_000);

afterAll(async () => {
  await Promise.all([moto?.stop(), fauxqs?.stop()]);
});

/** A cluster with one service of `desiredCount` tasks, in moto. */
const fleetService = async (name: string, desiredCount: number) => {
  await ecs.send(new CreateClusterCommand({ clusterName: name }));
  const { taskDefinition } = await ecs.send(
    new RegisterTaskDefinitionCommand({
      family: name,
      containerDefinitions: [{ name: 'worker', image: 'worker:latest', memory: 128 }],
    }),
  );
  const { service } = await ecs.send(
    new CreateServiceCommand({
      cluster: name,
      serviceName: `${name}-service`,
      taskDefinition: taskDefinition?.taskDefinitionArn,
      desiredCount,
    }),
  );
  if (!service?.serviceName) throw new Error('moto created no service');
  return { cluster: name, service: service.serviceName };
};

const desiredCountOf = async (fleet: { cluster: string; service: string }) => {
  const { services } = await ecs.send(
    new DescribeServicesCommand({ cluster: fleet.cluster, services: [fleet.service] }),
  );
  return services?.[0]?.desiredCount;
};

const queueWith = async (name: string, jobs: number) => {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  if (!QueueUrl) throw new Error('fauxqs created no queue');
  for (let job = 0; job < jobs; job++)
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: JSON.stringify({ job }) }));
  return QueueUrl;
};

describe('the ECS adapter (moto)', () => {
  it("reads a service's desired count and sets it", async () => {
    const fleet = await fleetService('adapter-fleet', 0);
    const services = ecsFleetServices(ecs);
    expect(await services.desiredTasks(fleet)).toBe(0);
    await services.setDesiredTasks(fleet, 1);
    expect(await desiredCountOf(fleet)).toBe(1);
    expect(await services.desiredTasks(fleet)).toBe(1);
  });

  it('fails for a service ECS does not have, naming it', async () => {
    await ecs.send(new CreateClusterCommand({ clusterName: 'empty-cluster' }));
    await expect(
      ecsFleetServices(ecs).desiredTasks({ cluster: 'empty-cluster', service: 'no-such-service' }),
    ).rejects.toThrow(/no-such-service/);
  });
});

describe('the SQS adapter (fauxqs)', () => {
  it('counts the jobs waiting, not those a worker holds', async () => {
    const queueUrl = await queueWith('adapter-jobs', 3);
    const queues = sqsJobQueues(sqs);
    expect(await queues.waitingJobs(queueUrl)).toBe(3);
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, VisibilityTimeout: 60 }));
    expect(await queues.waitingJobs(queueUrl)).toBe(2);
    expect(await queues.waitingJobs(await queueWith('adapter-empty', 0))).toBe(0);
  });
});

const putParameter = (name: string, value: string) =>
  ssm.send(new PutParameterCommand({ Name: name, Value: value, Type: 'String' }));

describe('the Parameter Store adapter (moto)', () => {
  it('lists every fleet directly under the path, page after page, and no other', async () => {
    const fleets = Array.from({ length: 23 }, (_, index) => ({
      modelId: `acme/model-${index}`,
      queueUrl: `https://sqs.${LOCAL_REGION}.amazonaws.com/000000000000/jobs-${index}`,
      cluster: `Prognoz-acme-model-${index}`,
      service: `service-${index}`,
    }));
    for (const fleet of fleets)
      await putParameter(`/Prognoz/fleets/${fleet.modelId.replace('/', '-')}`, JSON.stringify(fleet));
    await putParameter('/Other/fleets/acme-other', JSON.stringify({ ...fleets[0], modelId: 'acme/other' }));

    const listed = await ssmFleetDirectory('/Prognoz/fleets', ssm).fleets();
    expect(listed.map((fleet) => fleet.modelId).sort()).toEqual(fleets.map((fleet) => fleet.modelId).sort());
    expect(listed.find((fleet) => fleet.modelId === 'acme/model-7')).toEqual(fleets[7]);
  });

  it('refuses a parameter that is not a fleet, naming it', async () => {
    await putParameter('/Broken/fleets/acme-echo', '{"modelId":"acme/echo"}');
    await expect(ssmFleetDirectory('/Broken/fleets', ssm).fleets()).rejects.toThrow('/Broken/fleets/acme-echo');
  });

  it('finds no fleet under a path with none', async () => {
    expect(await ssmFleetDirectory('/Empty/fleets', ssm).fleets()).toEqual([]);
  });
});

describe('a nudge through the adapters, as the sweeper builds them', () => {
  it('wakes the listed fleet at zero with a job waiting, and leaves the others as they are', async () => {
    const cold = {
      modelId: 'acme/cold',
      queueUrl: await queueWith('cold-jobs', 1),
      ...(await fleetService('cold', 0)),
    };
    const quiet = {
      modelId: 'acme/quiet',
      queueUrl: await queueWith('quiet-jobs', 0),
      ...(await fleetService('quiet', 0)),
    };
    const busy = {
      modelId: 'acme/busy',
      queueUrl: await queueWith('busy-jobs', 9),
      ...(await fleetService('busy', 3)),
    };
    const gone = { modelId: 'acme/gone', queueUrl: await queueWith('gone-jobs', 1), cluster: 'cold', service: 'gone' };
    for (const fleet of [cold, quiet, busy, gone])
      await putParameter(`/Swept/fleets/${fleet.modelId.replace('/', '-')}`, JSON.stringify(fleet));

    // The sweeper's clients, pointed at the emulators by the standard endpoint variables, as the local runtime does.
    const awsEnv = {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      AWS_ENDPOINT_URL_ECS: moto.endpoint,
      AWS_ENDPOINT_URL_SSM: moto.endpoint,
      AWS_ENDPOINT_URL_SQS: fauxqs.address,
    };
    for (const [name, value] of Object.entries(awsEnv)) vi.stubEnv(name, value);
    let report: Awaited<ReturnType<typeof nudgeFleets>>;
    try {
      const fleets = await ssmFleetDirectory('/Swept/fleets').fleets();
      report = await nudgeFleets({ queues: sqsJobQueues(), services: ecsFleetServices() }, fleets);
    } finally {
      vi.unstubAllEnvs();
    }

    expect(report).toEqual({
      'acme/cold': 'nudged',
      'acme/quiet': 'idle',
      'acme/busy': 'wanted',
      'acme/gone': 'error',
    });
    expect(await desiredCountOf(cold)).toBe(1);
    expect(await desiredCountOf(quiet)).toBe(0);
    expect(await desiredCountOf(busy)).toBe(3);
  });
});
