import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import Replicate from 'replicate';
import { afterAll, describe, expect, it } from 'vitest';
import { call, processes, runtime, until, untilTerminal } from '../support/api.ts';
import { newAccountWithOwner, newOperator } from '../support/owners.ts';
import { testCatalog } from '../support/catalog.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);
// prognoz/stream, not echo: the other suites' predictions run on echo's model server.
const MODEL = 'prognoz/stream';
const CAP = testCatalog.require(MODEL).fleet.maxTasksCap;

interface DeploymentBody {
  current_release: {
    number: number;
    created_by: { username: string } | null;
    configuration: { hardware: string; min_instances: number; max_instances: number };
  };
  instances: { running: number; desired: number };
}
interface ErrorBody {
  error: { code: string; fields?: { field: string; message: string }[] };
}

const patch = (token: string, body: unknown, model = MODEL) =>
  call<DeploymentBody & ErrorBody>(`deployments/${model}`, { method: 'PATCH', token, body });
const get = (model = MODEL) => call<DeploymentBody>(`deployments/${model}`);

/** `npx prognoz deployments …`, at the test runtime's table and fleets. */
const prognoz = async (...args: string[]): Promise<unknown> => {
  const { dynamoEndpoint, tableName, fleets } = runtime();
  const { stdout } = await run(
    process.execPath,
    [
      path.join(ROOT, 'bin', 'prognoz.mjs'),
      ...args,
      '--table',
      tableName,
      '--cluster-prefix',
      fleets.clusterPrefix,
      '--json',
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
        AWS_ENDPOINT_URL_ECS: fleets.endpoint,
        AWS_ENDPOINT_URL_APPLICATION_AUTO_SCALING: fleets.endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      },
    },
  );
  return JSON.parse(stdout) as unknown;
};

const modelServers = async () =>
  (await processes()).filter((p) => p.name.startsWith(`model:${MODEL}`) && p.pid !== null);

describe("resizing a deployment (an operator's)", () => {
  // Whatever a test left, the fleet is one warm model server again, as the suites expect.
  afterAll(async () => {
    const operator = await newOperator();
    await patch(operator.session, { min_instances: 1, max_instances: 1 });
    await until('one model server again', async () => (await modelServers()).length === 1);
  });

  it("refuses an account's API token and a plain owner with 403, and changes nothing", async () => {
    const before = await get();
    const plainOwner = await newAccountWithOwner();
    for (const token of [runtime().apiToken, plainOwner.apiToken, plainOwner.session]) {
      const refused = await patch(token, { min_instances: 0 });
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe('operator_required');
    }
    // Even for a deployment that does not exist: a token learns nothing from a PATCH.
    expect((await patch(runtime().apiToken, { min_instances: 0 }, 'prognoz/nothing')).status).toBe(403);
    expect((await get()).json).toEqual(before.json);
  });

  it('refuses with 422 naming the field what the fleet cannot take, 404 an unknown deployment, 400 a broken body', async () => {
    const { session } = await newOperator();
    const before = await get();
    const fieldsOf = async (body: unknown) => {
      const refused = await patch(session, body);
      expect(refused.status, JSON.stringify(refused.json)).toBe(422);
      expect(refused.json.error.code).toBe('invalid_configuration');
      return refused.json.error.fields?.map((issue) => issue.field);
    };
    expect(await fieldsOf({ min_instances: -1 })).toEqual(['min_instances']);
    expect(await fieldsOf({ max_instances: -1 })).toEqual(['max_instances']);
    expect(await fieldsOf({ min_instances: 3, max_instances: 2 })).toEqual(['min_instances']);
    expect(await fieldsOf({ max_instances: CAP + 1 })).toEqual(['max_instances']);
    expect(await fieldsOf({ hardware: 'p5.48xlarge' })).toEqual(['hardware']);
    expect(await fieldsOf({ version: 'someone/else' })).toEqual(['version']);
    const unknown = await patch(session, { min_instances: 1 }, 'prognoz/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.code).toBe('deployment_not_found');
    expect((await patch(session, { min_instances: 'two' })).json.error.code).toBe('invalid_body');
    expect((await patch(session, { replicas: 2 })).json.error.code).toBe('invalid_body');
    expect((await get()).json).toEqual(before.json);
  });

  it('scales an idle model to zero with min 0, starts it again for a prediction, and keeps one warm with min 1', async () => {
    const operator = await newOperator();
    const before = (await get()).json.current_release;
    const changed = await patch(operator.session, { min_instances: 0, max_instances: 2 });
    expect(changed.status, JSON.stringify(changed.json)).toBe(200);
    expect(changed.json.current_release).toMatchObject({
      number: before.number + 1,
      created_by: { username: operator.email },
      configuration: { min_instances: 0, max_instances: 2 },
    });
    // Idle past the scale-in time (3 s here): no model server at all.
    await until('the idle model server to stop', async () => (await modelServers()).length === 0);
    expect((await get()).json.instances).toEqual({ running: 0, desired: 0 });
    // A prediction starts one (a cold start), and runs.
    const created = await call<{ id: string }>('predictions', {
      method: 'POST',
      body: { version: MODEL, input: { text: 'after a cold start' } },
    });
    expect(created.status).toBe(201);
    expect((await untilTerminal(created.json.id, 120_000)).status).toBe('succeeded');
    // Min 1: one stays warm past the scale-in time.
    await patch(operator.session, { min_instances: 1 });
    await until('a warm model server', async () => (await modelServers()).length === 1);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await modelServers()).toHaveLength(1);
  }, 240_000);

  it("takes Replicate's deployments.update from an operator, and shows each change with `npx prognoz deployments show`", async () => {
    const operator = await newOperator();
    const [owner, name] = MODEL.split('/') as [string, string];
    const asOperator = new Replicate({ auth: operator.session, baseUrl: runtime().apiUrl.replace(/\/$/, '') });
    const updated = await asOperator.deployments.update(owner, name, { min_instances: 1, max_instances: 3 });
    expect(updated.current_release.configuration).toMatchObject({ min_instances: 1, max_instances: 3 });
    const asAccount = new Replicate({ auth: runtime().apiToken, baseUrl: runtime().apiUrl.replace(/\/$/, '') });
    await expect(asAccount.deployments.update(owner, name, { max_instances: 1 })).rejects.toThrow(/403/);

    const viaCli = (await prognoz('deployments', 'update', MODEL, '--max-instances', '2')) as Record<string, unknown>;
    expect(viaCli).toMatchObject({ deployment: MODEL, min_instances: 1, max_instances: 2 });
    const shown = (await prognoz('deployments', 'show', MODEL)) as {
      release: number;
      changes: { release: number; by: string; before: object; after: object }[];
    };
    const [last, previous] = shown.changes;
    expect(last?.by).toMatch(/^cli:/);
    expect(last).toMatchObject({
      release: shown.release,
      before: { min_instances: 1, max_instances: 3 },
      after: { min_instances: 1, max_instances: 2 },
    });
    expect(previous).toMatchObject({
      release: shown.release - 1,
      by: operator.email,
      after: { min_instances: 1, max_instances: 3 },
    });
    await expect(prognoz('deployments', 'update', MODEL, '--min-instances', '5')).rejects.toThrow(
      /--min-instances must not exceed max_instances/,
    );
  });
});
