import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Replicate, { validateWebhook } from 'replicate';
import { describe, expect, it } from 'vitest';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { call, pollUntil, runtime } from '../support/api.ts';
import { receiverForFile } from '../support/receiver.ts';
import { wordErrorRate } from '../support/wer.ts';
import { LOCAL_CERTIFICATE_FILE } from '../../local/local-tls.ts';
import { signIn } from '../support/owners.ts';
import { testCatalog } from '../support/catalog.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const JFK_AUDIO = path.resolve(ROOT, 'test', 'fixtures', 'audio', 'jfk.flac');
const JFK =
  'And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.';

const receiver = receiverForFile();

interface JsonSchema {
  readonly properties?: Record<string, unknown>;
}

/** The official npm client, pointed at the local runtime as its README shows. */
const client = () => new Replicate({ auth: runtime().apiToken, baseUrl: runtime().apiUrl.replace(/\/$/, '') });

describe('the official replicate npm client (1.4.0)', () => {
  it('run() gives FileOutput objects for the files a model returns, read from their https URLs', async () => {
    const output = (await client().run('acme/file-stream', {
      input: { count: 2, kind: 'text', pause: 0 },
    })) as unknown as (ReadableStream & { url(): URL; blob(): Promise<Blob> })[];
    expect(output).toHaveLength(2);
    for (const [index, file] of output.entries()) {
      expect(file).toBeInstanceOf(ReadableStream);
      expect(file.url().protocol).toBe('https:');
      expect(file.url().pathname).toMatch(new RegExp(`/output-${index}\\.txt$`));
      const blob = await file.blob();
      expect(blob.type).toMatch(/^text\/plain/);
      expect(await blob.text()).toBe(`part ${index} of 2\n`);
    }
  });

  it('run() blocks for the output, and polls for it when asked to', async () => {
    const replicate = client();
    expect(await replicate.run('prognoz/echo', { input: { text: 'blocking' } })).toEqual({
      text: 'blocking',
      file: null,
    });
    const seen: string[] = [];
    const polled = await replicate.run(
      'prognoz/echo',
      { input: { text: 'polled', sleep: 1 }, wait: { mode: 'poll', interval: 200 } },
      (p) => seen.push(p.status),
    );
    expect(polled).toEqual({ text: 'polled', file: null });
    expect(seen).toContain('succeeded');
    // Replicate's clients know five statuses: to them a prediction waiting in its queue is `starting`.
    expect(seen.every((status) => ['starting', 'processing', 'succeeded'].includes(status))).toBe(true);
  });

  it('models.get, models.versions.list and get, hardware.list: the catalog as Replicate shows it', async () => {
    const replicate = client();
    const model = await replicate.models.get('prognoz', 'echo');
    expect(model).toMatchObject({ owner: 'prognoz', name: 'echo', visibility: 'public' });
    expect(model.latest_version?.id).toBe('prognoz/echo');
    const schemas = (model.latest_version?.openapi_schema as { components: { schemas: Record<string, JsonSchema> } })
      .components.schemas;
    expect(Object.keys(schemas.Input?.properties ?? {})).toEqual(expect.arrayContaining(['text', 'repeat', 'sleep']));
    const versions = await replicate.models.versions.list('prognoz', 'echo');
    expect(versions.results.map((version) => version.id)).toEqual(['prognoz/echo']);
    expect(await replicate.models.versions.get('prognoz', 'echo', 'prognoz/echo')).toEqual(model.latest_version);
    const hardware = await replicate.hardware.list();
    expect(hardware.map((kind) => kind.sku)).toEqual(expect.arrayContaining(['t3.small']));
    // Models come from the manifest: a write is refused, saying which methods the route has.
    const write = await fetch(`${runtime().apiUrl}models`, {
      method: 'POST',
      headers: { authorization: `Bearer ${runtime().apiToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'prognoz', name: 'new' }),
    });
    expect(write.status).toBe(405);
    // GET lists them, QUERY searches them (models.search).
    expect(write.headers.get('allow')).toBe('GET, QUERY');
    expect(((await write.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
  });

  it("deployments.list, get and predictions.create: each model's fleet is a deployment of its name", async () => {
    const replicate = client();
    const listed = await replicate.deployments.list();
    expect(listed.results.map((d) => `${d.owner}/${d.name}`)).toEqual(expect.arrayContaining(['prognoz/echo']));
    const echo = await replicate.deployments.get('prognoz', 'echo');
    const manifest = testCatalog.require('prognoz/echo').fleet;
    // The local runtime's first bounds: one warm model server per model (local/run-fleets.ts).
    expect(echo).toMatchObject({
      owner: 'prognoz',
      name: 'echo',
      current_release: {
        number: 1,
        model: 'prognoz/echo',
        version: 'prognoz/echo',
        configuration: {
          hardware: manifest.instanceType,
          min_instances: 1,
          max_instances: 1,
        },
      },
    });
    // The local runtime keeps one model server of each model running.
    expect((echo as unknown as { instances: { running: number } }).instances.running).toBe(1);
    const created = await replicate.deployments.predictions.create('prognoz', 'echo', {
      input: { text: 'on the deployment' },
    });
    const done = await replicate.wait(created, { interval: 200 });
    expect(done).toMatchObject({ status: 'succeeded', output: { text: 'on the deployment' }, model: 'prognoz/echo' });
    // An unknown deployment is a 404 in the service's error shape.
    const unknown = await fetch(`${runtime().apiUrl}deployments/prognoz/nothing`, {
      headers: { authorization: `Bearer ${runtime().apiToken}` },
    });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('deployment_not_found');
  });

  it('predictions.create, get, wait, cancel and list', async () => {
    const replicate = client();
    const created = await replicate.predictions.create({ model: 'prognoz/echo', input: { text: 'created', sleep: 1 } });
    expect(created.urls.get).toBe(`${runtime().apiUrl}predictions/${created.id}`);
    const fetched = await replicate.predictions.get(created.id);
    expect(fetched.id).toBe(created.id);
    const done = await replicate.wait(fetched, { interval: 200 });
    expect(done).toMatchObject({ status: 'succeeded', output: { text: 'created' }, version: 'prognoz/echo' });
    expect(done.metrics?.predict_time).toBeGreaterThan(0.5);

    const long = await replicate.predictions.create({ model: 'prognoz/echo', input: { sleep: 30 } });
    await pollUntil(long.id, (p) => p.status === 'processing', 20_000);
    const canceled = await replicate.predictions.cancel(long.id);
    expect(canceled.status).toBe('canceled');

    let page = await replicate.predictions.list();
    for (let tries = 0; !page.results.some((p) => p.id === long.id) && tries < 50; tries++)
      page = await replicate.predictions.list();
    expect(page.results.map((p) => p.id)).toContain(long.id);
    expect((page.results[0]?.created_at ?? '') >= (page.results.at(-1)?.created_at ?? '')).toBe(true);
  });

  it('stream() yields the output as the model streams it', async () => {
    const text = 'streamed one word at a time';
    const pieces: string[] = [];
    for await (const event of client().stream('prognoz/stream', { input: { text, sleep: 1.5 } })) {
      // The client's ServerSentEvent: its toString() is the data of an output event.
      if (event.event === 'output') pieces.push(event.data);
    }
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(text);
  });

  it('a Buffer input is uploaded through /files and transcribed', async () => {
    const output = (await client().run('openai/whisper-base', { input: { audio: readFileSync(JFK_AUDIO) } })) as {
      transcription: string;
    };
    expect(wordErrorRate(JFK, output.transcription)).toBeLessThanOrEqual(0.2);
  }, 240_000);

  it('validateWebhook accepts a delivery from prognoz, and refuses it altered', async () => {
    const secret = (await call<{ key: string }>('webhooks/default/secret')).json.key;
    const created = await client().predictions.create({
      model: 'prognoz/echo',
      input: { text: 'signed' },
      webhook: `${receiver().url}/signed`,
    });
    await pollUntil(created.id, () => receiver().accepted(created.id).length > 0, 20_000);
    const delivery = receiver().accepted(created.id)[0];
    if (!delivery) throw new Error('no delivery');
    const headers = new Headers(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)]));
    expect(
      await validateWebhook(
        new Request('http://receiver/signed', { method: 'POST', headers, body: delivery.body }),
        secret,
      ),
    ).toBe(true);
    const altered = delivery.body.replace('signed', 'forged');
    expect(
      await validateWebhook(new Request('http://receiver/signed', { method: 'POST', headers, body: altered }), secret),
    ).toBe(false);
    expect((JSON.parse(delivery.body) as PredictionView).status).toBe('succeeded');
  });
});

interface PythonStep {
  readonly step: string;
  readonly [field: string]: unknown;
}

describe('the official replicate PyPI client (1.0.7)', () => {
  it('runs, creates, gets, waits, cancels, lists, streams and uploads a file input', async () => {
    const python = path.join(ROOT, '.venv', 'bin', 'python');
    const script = path.join(ROOT, 'test', 'clients', 'replicate_python_client.py');
    const env = {
      ...process.env,
      REPLICATE_API_TOKEN: runtime().apiToken,
      // The local runtime's owner, an operator, signed in.
      PROGNOZ_OPERATOR_TOKEN: (await signIn(runtime().owner.email, runtime().owner.password)).AccessToken ?? '',
      // The Python client's paths start with /v1/.
      PROGNOZ_BASE: runtime().apiUrl.replace(/\/v1\/$/, ''),
      PROGNOZ_AUDIO: JFK_AUDIO,
      REPLICATE_POLL_INTERVAL: '0.2',
      // The local runtime answers https with its own certificate (local/local-tls.ts): the client trusts it as a user would.
      SSL_CERT_FILE: LOCAL_CERTIFICATE_FILE,
    };
    let stdout = '';
    try {
      ({ stdout } = await promisify(execFile)(python, [script], { env, timeout: 240_000 }));
    } catch (error) {
      throw new Error(`the Python client failed: ${String((error as { stdout?: string }).stdout ?? error)}`);
    }
    const steps = new Map(
      stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as PythonStep)
        .map((step) => [step.step, step]),
    );
    expect(steps.get('run_blocking')).toMatchObject({ output: { text: 'blocking' } });
    expect(steps.get('run_polling')).toMatchObject({ output: { text: 'polled' } });
    // The catalog, through the client's own models (pydantic): every field it requires is there.
    expect(steps.get('model')).toMatchObject({
      owner: 'prognoz',
      name: 'echo',
      visibility: 'public',
      latest_version: 'prognoz/echo',
      input_properties: expect.arrayContaining(['text', 'repeat', 'sleep']) as unknown,
    });
    expect(steps.get('model')?.run_count).toBeGreaterThanOrEqual(1);
    expect(steps.get('versions')).toMatchObject({ ids: ['prognoz/echo'], next: null });
    expect(steps.get('version')).toMatchObject({ id: 'prognoz/echo' });
    expect(steps.get('hardware')?.skus).toEqual(expect.arrayContaining(['t3.small', 'g5.xlarge']));
    expect(steps.get('deployments')?.names).toEqual(expect.arrayContaining(['prognoz/echo']));
    expect(steps.get('deployment_update')).toMatchObject({ min_instances: 1, max_instances: 1 });
    expect(steps.get('deployment_update_by_token')).toMatchObject({ status: 403 });
    expect(steps.get('deployment')).toMatchObject({
      owner: 'prognoz',
      name: 'echo',
      model: 'prognoz/echo',
      version: 'prognoz/echo',
      hardware: 't3.small',
    });
    expect(steps.get('deployment_prediction')).toMatchObject({
      status: 'succeeded',
      output: { text: 'on the deployment' },
    });
    const created = steps.get('create');
    expect(created?.urls).toMatchObject({ get: expect.stringContaining(String(created?.id)) as unknown });
    expect(steps.get('get')).toMatchObject({ id: created?.id, version: 'prognoz/echo' });
    expect(steps.get('wait')).toMatchObject({ status: 'succeeded', output: { text: 'created' } });
    expect(steps.get('create_by_version')).toMatchObject({ status: 'succeeded', output: { text: 'by version' } });
    expect(steps.get('cancel')).toMatchObject({ status: 'canceled' });
    expect((steps.get('list')?.ids as string[]).length).toBeGreaterThan(0);
    expect((steps.get('stream')?.pieces as string[]).join('')).toBe('one two three four');
    expect(wordErrorRate(JFK, String(steps.get('file_input')?.transcription))).toBeLessThanOrEqual(0.2);
    // Files a model returns come as FileOutput, read through the client (which sends its token along: the URL ignores it).
    expect(steps.get('file_outputs')).toMatchObject({
      kinds: ['FileOutput', 'FileOutput'],
      texts: ['part 0 of 2\n', 'part 1 of 2\n'],
    });
    expect(steps.get('file_outputs')?.urls).toEqual([
      expect.stringMatching(/^https:\/\/.+\/output-0\.txt\?key=/),
      expect.stringMatching(/^https:\/\/.+\/output-1\.txt\?key=/),
    ]);
    // The rest of the read API (test/e2e/replicate-read-api.test.ts has it through the npm client and raw HTTP).
    const listed = steps.get('files_list');
    expect(listed?.ids).toEqual(expect.arrayContaining([listed?.uploaded]));
    expect((listed?.ids as string[])[0]).toBe(listed?.uploaded);
    expect(listed?.etag).toEqual(expect.any(String));
    expect(steps.get('collections')).toMatchObject({ slugs: ['speech-to-text', 'service-checks'], next: null });
    expect(steps.get('collection')).toMatchObject({
      slug: 'speech-to-text',
      name: 'Speech to text',
      models: ['openai/whisper-base'],
    });
    // openai/whisper-large-v3-turbo is withheld here (no weights): not found, not in its collection.
    expect(steps.get('search')).toMatchObject({ models: ['openai/whisper-base'] });
    expect(steps.get('account')).toMatchObject({
      type: 'organization',
      username: runtime().accountId,
      name: runtime().accountId,
      github_url: null,
    });
  }, 300_000);
});
