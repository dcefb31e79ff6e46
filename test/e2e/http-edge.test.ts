import { beforeAll, describe, expect, it } from 'vitest';
import { generateToken } from '../../shared/domain/tokens.ts';
import {
  call,
  createOtherAccount,
  createPrediction,
  getPrediction,
  cancelPrediction,
  runtime,
} from '../support/api.ts';

const ERROR_SHAPE = {
  error: {
    code: expect.any(String) as string,
    message: expect.any(String) as string,
    request_id: expect.any(String) as string,
  },
};

describe('request bodies', () => {
  it('JSON and form bodies give the same prediction', async () => {
    const json = await createPrediction({ text: 'same', sleep: 0.2, fail: false }, { headers: { prefer: 'wait' } });
    const form = await call('prognoz/echo', {
      body: 'text=same&sleep=0.2&fail=false',
      headers: { 'content-type': 'application/x-www-form-urlencoded', prefer: 'wait' },
    });

    expect(form.status).toBe(201);
    expect(form.json.input).toEqual(json.json.input);
    expect(form.json.output).toEqual(json.json.output);
    expect(form.json.status).toBe('succeeded');
  });

  it('malformed JSON is 400', async () => {
    const response = await call('prognoz/echo', { body: '{"text": ', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ ...ERROR_SHAPE, error: { code: 'invalid_json' } });
  });

  it('a JSON body that is not an object is 400', async () => {
    const response = await call('prognoz/echo', { body: '["text"]', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: { code: 'invalid_body' } });
  });

  it('text/plain is 415', async () => {
    const response = await call('prognoz/echo', { body: 'text=hi', headers: { 'content-type': 'text/plain' } });
    expect(response.status).toBe(415);
    expect(response.json).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });

  it('wrong types and unknown inputs are 422 naming every field', async () => {
    const response = await createPrediction({ text: 5, sleep: 'long', fail: 'yes', colour: 'red' });
    expect(response.status).toBe(422);
    expect(response.json).toMatchObject({ ...ERROR_SHAPE, error: { code: 'invalid_input' } });
    const fields = (response.json as unknown as { error: { fields: { field: string }[] } }).error.fields.map(
      (f) => f.field,
    );
    expect(fields.sort()).toEqual(['colour', 'fail', 'sleep', 'text']);
  });

  it('out-of-range values are 422', async () => {
    const response = await createPrediction({ sleep: 301 });
    expect(response.status).toBe(422);
    expect(JSON.stringify(response.json)).toContain('sleep');
  });

  it('data: and non-http(s) URLs are 422', async () => {
    for (const file of ['data:text/plain;base64,aGk=', 'ftp://example.com/a.wav', 'file:///etc/passwd', 'not a url']) {
      const response = await createPrediction({ file });
      expect(response.status, file).toBe(422);
      expect((response.json as unknown as { error: { fields: { field: string }[] } }).error.fields[0]?.field).toBe(
        'file',
      );
    }
  });

  it('a failed validation creates nothing', async () => {
    const before = await createPrediction({ sleep: -1 });
    expect(before.status).toBe(422);
    expect(before.json).not.toHaveProperty('id');
  });
});

describe('routing', () => {
  it('an unknown model is 404', async () => {
    const response = await call('acme/nothing', { body: {} });
    expect(response.status).toBe(404);
    expect(response.json).toMatchObject({ error: { code: 'model_not_found' } });
  });

  it('an unknown path is 404 and a wrong method 405 with Allow', async () => {
    expect((await call('no/such/path/here')).status).toBe(404);
    const wrong = await call('prognoz/echo', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, POST');
    expect(wrong.json).toMatchObject({ error: { code: 'method_not_allowed' } });
  });
});

describe('authentication', () => {
  it('a missing token is 401', async () => {
    const response = await createPrediction({}, { token: null });
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ ...ERROR_SHAPE, error: { code: 'missing_token' } });
  });

  it('an unknown token, or one with a bad checksum, is 401', async () => {
    const mine = runtime().apiToken;
    const mistyped = `${mine.slice(0, -1)}${mine.endsWith('A') ? 'B' : 'A'}`;
    for (const token of [generateToken(), 'pgz_this-is-not-a-real-token-at-all', mistyped]) {
      const response = await createPrediction({}, { token });
      expect(response.status).toBe(401);
      expect(response.json).toMatchObject({ error: { code: 'invalid_token' } });
    }
  });

  it('`Authorization: Token x` is 400', async () => {
    const response = await createPrediction(
      {},
      { token: null, headers: { authorization: `Token ${runtime().apiToken}` } },
    );
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ error: { code: 'malformed_authorization' } });
  });

  describe('another account', () => {
    let otherToken = '';
    beforeAll(async () => {
      otherToken = await createOtherAccount();
    });

    it("cannot see or cancel someone else's prediction: 404", async () => {
      const mine = await createPrediction({ sleep: 1 });
      const seen = await getPrediction(mine.json.id, { token: otherToken });
      expect(seen.status).toBe(404);
      expect((await cancelPrediction(mine.json.id, { token: otherToken })).status).toBe(404);
      expect((await getPrediction(mine.json.id)).status).toBe(200);
    });

    it('sees its own predictions', async () => {
      const theirs = await createPrediction({ text: 'theirs' }, { token: otherToken, headers: { prefer: 'wait' } });
      expect(theirs.json.status).toBe('succeeded');
      expect((await getPrediction(theirs.json.id, { token: otherToken })).status).toBe(200);
      expect((await getPrediction(theirs.json.id)).status).toBe(404);
    });
  });
});

describe('diagnostics and webhooks at create', () => {
  it('echoes x-request-id, and makes one when absent', async () => {
    const given = await createPrediction({}, { headers: { 'x-request-id': 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6' } });
    expect(given.headers.get('x-request-id')).toBe('f81d4fae-7dec-11d0-a765-00a0c91e6bf6');
    const made = await createPrediction({ text: 5 });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(made.json).toMatchObject({ error: { request_id: made.headers.get('x-request-id') } });
  });

  it('keeps the webhook out of the model input, and rejects two different ones', async () => {
    const webhook = 'http://127.0.0.1:9/hooks/prognoz';
    const created = await createPrediction({ text: 'hook', webhook }, { headers: { prefer: 'wait' } });
    expect(created.status).toBe(201);
    expect(created.json.webhook).toBe(webhook);
    expect(created.json.input).toEqual({ text: 'hook', repeat: 1, sleep: 0, fail: false });

    const conflict = await createPrediction({ webhook }, { headers: { 'webhook-url': 'https://example.com/other' } });
    expect(conflict.status).toBe(400);
    expect(conflict.json).toMatchObject({ error: { code: 'webhook_conflict' } });
  });
});
