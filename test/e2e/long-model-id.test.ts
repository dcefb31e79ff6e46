import { afterAll, describe, expect, it } from 'vitest';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { call, until, untilTerminal } from '../support/api.ts';
import { LONG_MODEL_ID } from '../support/long-model-id.ts';
import { newOperator } from '../support/owners.ts';

/**
 * A brought model whose id is 60 characters long (global setup): every name the runtime derives from
 * it (its workflow's, its fleet's) is within its service's limit, so none of these answers 500.
 */
const [OWNER, NAME] = LONG_MODEL_ID.split('/') as [string, string];

interface DeploymentBody {
  owner: string;
  name: string;
  current_release: { configuration: { min_instances: number; max_instances: number } };
  instances: { running: number };
}

describe(`a model with a ${LONG_MODEL_ID.length}-character id`, () => {
  const resize = async (bounds: { min_instances: number; max_instances: number }) => {
    const operator = await newOperator();
    return call<DeploymentBody>(`deployments/${LONG_MODEL_ID}`, {
      method: 'PATCH',
      token: operator.session,
      body: bounds,
    });
  };
  // As the other suites expect it: one warm model server.
  afterAll(async () => {
    await resize({ min_instances: 1, max_instances: 1 });
    await until(
      'one warm model server',
      async () => (await call<DeploymentBody>(`deployments/${LONG_MODEL_ID}`)).json.instances.running === 1,
    );
  }, 90_000);

  it('runs a prediction, and the prediction is listed under its model', async () => {
    expect(LONG_MODEL_ID).toHaveLength(60);
    const created = await call<PredictionView>(LONG_MODEL_ID, { method: 'POST', body: { text: 'long names' } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const ended = await untilTerminal(created.json.id, 120_000);
    expect(ended).toMatchObject({ status: 'succeeded', model: LONG_MODEL_ID });
    const listed = await call<{ results: { id: string }[] }>(`predictions?model=${LONG_MODEL_ID}`);
    expect(listed.json.results.map((prediction) => prediction.id)).toContain(created.json.id);
  }, 150_000);

  it('is listed among the models, and read by its owner and name', async () => {
    const models = await call<{ results: { id: string }[] }>('models');
    expect(models.json.results.map((model) => model.id)).toContain(LONG_MODEL_ID);
    const model = await call<{ owner: string; name: string }>(`models/${LONG_MODEL_ID}`);
    expect(model.status).toBe(200);
    expect(model.json).toMatchObject({ owner: OWNER, name: NAME });
  });

  it('has a deployment that can be read and resized', async () => {
    const read = await call<DeploymentBody>(`deployments/${LONG_MODEL_ID}`);
    expect(read.status, JSON.stringify(read.json)).toBe(200);
    expect(read.json).toMatchObject({ owner: OWNER, name: NAME });
    // Down to zero when idle: its cap is one task, as a brought model's is.
    const resized = await resize({ min_instances: 0, max_instances: 1 });
    expect(resized.status, JSON.stringify(resized.json)).toBe(200);
    expect(resized.json.current_release.configuration).toMatchObject({ min_instances: 0, max_instances: 1 });
    const again = await call<DeploymentBody>(`deployments/${LONG_MODEL_ID}`);
    expect(again.json.current_release.configuration).toMatchObject({ min_instances: 0, max_instances: 1 });
  });
});
