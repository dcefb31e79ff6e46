import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import Replicate from 'replicate';
import { describe, expect, it } from 'vitest';
import type { PredictionView } from '../../shared/api/prediction-view.ts';
import { call, createOtherAccount, pollUntil, runtime } from '../support/api.ts';
import { LONG_MODEL_ID } from '../support/long-model-id.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const run = promisify(execFile);

/** The official npm client, pointed at the local runtime as its README shows. */
const client = (token = runtime().apiToken) =>
  new Replicate({ auth: token, baseUrl: runtime().apiUrl.replace(/\/$/, '') });

/** A raw request to the API, its body as text. */
const raw = async (route: string, init: RequestInit & { token?: string } = {}) => {
  const { token = runtime().apiToken, ...rest } = init;
  const response = await fetch(new URL(route, runtime().apiUrl), {
    ...rest,
    headers: { authorization: `Bearer ${token}`, ...(rest.headers as Record<string, string> | undefined) },
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

/** `npx prognoz …` as an operator runs it against the test runtime's table and bucket. */
const prognoz = (...args: string[]) => {
  const { dynamoEndpoint, tableName } = runtime();
  return run(
    process.execPath,
    [
      path.join(ROOT, 'bin', 'prognoz.mjs'),
      ...args,
      '--table',
      tableName,
      '--bucket',
      runtime().outputBucket,
      '--json',
    ],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        AWS_ENDPOINT_URL_DYNAMODB: dynamoEndpoint,
        AWS_ENDPOINT_URL_S3: runtime().s3Endpoint,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
      },
    },
  );
};

describe("the rest of Replicate's read API, through its npm client (1.4.0) and raw HTTP", () => {
  it("files.list: the caller's files newest first; their bytes with their type; another account's are not there", async () => {
    const replicate = client();
    const older = await replicate.files.create(new Blob(['первый'], { type: 'text/plain' }), { n: 1 });
    const newer = await replicate.files.create(
      new Blob([Uint8Array.from([0, 1, 2, 255])], { type: 'application/octet-stream' }),
    );
    const page = (await replicate.files.list()) as unknown as {
      results: { id: string; name: string; etag: string; urls: { get: string } }[];
      next: string | null;
      previous: string | null;
    };
    const ids = page.results.map((file) => file.id);
    expect(ids.indexOf(newer.id)).toBeGreaterThanOrEqual(0);
    expect(ids.indexOf(newer.id)).toBeLessThan(ids.indexOf(older.id));
    expect(page.results.find((file) => file.id === older.id)).toMatchObject({ etag: expect.any(String) as unknown });
    expect(page).toMatchObject({ previous: null });
    // Every page through the client's own paginate.
    const paged: string[] = [];
    for await (const files of replicate.paginate(() => replicate.files.list()))
      paged.push(...files.map((file) => file.id));
    expect(paged).toEqual(expect.arrayContaining([older.id, newer.id]));

    const bytes = await raw(`files/${older.id}/download`);
    expect(bytes).toMatchObject({ status: 200, text: 'первый' });
    expect(bytes.headers.get('content-type')).toMatch(/^text\/plain/);
    const binary = await fetch(new URL(`files/${newer.id}/download`, runtime().apiUrl), {
      headers: { authorization: `Bearer ${runtime().apiToken}` },
    });
    expect(new Uint8Array(await binary.arrayBuffer())).toEqual(Uint8Array.from([0, 1, 2, 255]));

    const stranger = await createOtherAccount();
    expect((await raw(`files/${older.id}/download`, { token: stranger })).status).toBe(404);
    const theirs = (await client(stranger).files.list()) as unknown as { results: unknown[] };
    expect(theirs.results).toEqual([]);
    expect((await raw('files?cursor=not-ours')).status).toBe(400);
    // Deleted, it is gone from the list and its bytes with it.
    await replicate.files.delete(older.id);
    expect((await raw(`files/${older.id}/download`)).status).toBe(404);
  });

  it("a model's README: its folder's, or a page made for it; the brought model's from its folder", async () => {
    const whisper = await raw('models/openai/whisper-base/readme');
    expect(whisper.status).toBe(200);
    expect(whisper.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(whisper.text).toMatch(/^# openai\/whisper-base\n/);
    const echo = await raw('models/prognoz/echo/readme');
    expect(echo.text).toContain('| `text` | string |');
    expect((await raw('models/acme/wordcount/readme')).text).toMatch(/^# acme\/wordcount\n/);
    expect((await raw('models/acme/none/readme')).status).toBe(404);
  });

  it('examples: the operator marks one with the CLI; callers see a copy without its private data', async () => {
    const created = await call<PredictionView>('acme/wordcount', {
      method: 'POST',
      body: { text: 'раз два три', token: 'sk-very-secret' },
      headers: { prefer: 'wait' },
    });
    const ended = await pollUntil(created.json.id, (p) => p.status === 'succeeded', 60_000);
    await prognoz('models', 'examples', 'add', 'acme/wordcount', ended.id);
    // Marked again: still one example.
    await prognoz('models', 'examples', 'add', 'acme/wordcount', ended.id);

    const stranger = await createOtherAccount();
    const listed = await raw('models/acme/wordcount/examples', { token: stranger });
    const page = JSON.parse(listed.text) as { results: Record<string, unknown>[]; next: string | null };
    expect(page.next).toBeNull();
    expect(page.results).toHaveLength(1);
    const [example] = page.results;
    expect(example).toMatchObject({
      id: ended.id,
      model: 'acme/wordcount',
      status: 'succeeded',
      output: ended.output,
      input: { text: 'раз два три', token: '**********' },
      logs: '',
    });
    for (const private_ of ['urls', 'webhook', 'cost']) expect(example).not.toHaveProperty(private_);
    expect(listed.text).not.toContain('sk-very-secret');
    // The model's default example is its first, as Replicate shows it.
    const model = await client(stranger).models.get('acme', 'wordcount');
    expect((model.default_example as unknown as { id: string } | null)?.id).toBe(ended.id);

    // A prediction that did not succeed is refused, saying why.
    const failed = await call<PredictionView>('prognoz/echo', {
      method: 'POST',
      body: { fail: true },
      headers: { prefer: 'wait' },
    });
    await pollUntil(failed.json.id, (p) => p.status === 'failed', 60_000);
    await expect(prognoz('models', 'examples', 'add', 'prognoz/echo', failed.json.id)).rejects.toThrow(
      /is failed: only a succeeded prediction is an example/,
    );
    await prognoz('models', 'examples', 'remove', 'acme/wordcount', ended.id);
    expect(JSON.parse((await raw('models/acme/wordcount/examples')).text)).toMatchObject({ results: [] });
  });

  it('collections.list and get: the manifest’s, with the brought model that joined one', async () => {
    const replicate = client();
    const listed = await replicate.collections.list();
    expect(listed.results.map((collection) => collection.slug)).toEqual(['speech-to-text', 'service-checks']);
    expect(listed.results[0]).toMatchObject({ name: 'Speech to text', description: expect.any(String) as unknown });
    const checks = await replicate.collections.get('service-checks');
    expect(checks.models?.map((model) => `${model.owner}/${model.name}`)).toEqual([
      'prognoz/echo',
      'prognoz/stream',
      'acme/wordcount',
    ]);
    await expect(replicate.collections.get('nowhere')).rejects.toThrow(/404/);
  });

  it('models.search (QUERY /models), and GET and QUERY /search: ranked, in Replicate’s shapes', async () => {
    const replicate = client();
    // openai/whisper-large-v3-turbo is withheld here (no weights): search does not find it.
    const found = await replicate.models.search('whisper');
    expect(found.results.map((model) => `${model.owner}/${model.name}`)).toEqual(['openai/whisper-base']);
    const counted = await replicate.models.search('count words');
    expect(counted.results.map((model) => `${model.owner}/${model.name}`)).toEqual(['acme/wordcount']);

    const searched = await raw('search?query=transcribes%20speech&limit=1');
    expect(searched.status).toBe(200);
    const body = JSON.parse(searched.text) as {
      query: string;
      models: { model: { owner: string; name: string }; metadata: { score: number; tags: string[] } }[];
      collections: { slug: string; models: string[] }[];
      pages: unknown[];
    };
    expect(body.query).toBe('transcribes speech');
    expect(body.models.map(({ model }) => `${model.owner}/${model.name}`)).toEqual(['openai/whisper-base']);
    expect(body.models[0]?.metadata.tags).toEqual(['speech-to-text']);
    // A collection matches by its own words: none has both.
    expect(body.collections).toEqual([]);
    const collections = JSON.parse((await raw('search?query=speech')).text) as typeof body;
    // A word in its id counts most: the brought model whose id says "speech" comes first.
    expect(collections.models.map(({ model }) => `${model.owner}/${model.name}`)).toEqual([
      LONG_MODEL_ID,
      'openai/whisper-base',
    ]);
    expect(collections.collections).toEqual([
      expect.objectContaining({
        slug: 'speech-to-text',
        models: expect.arrayContaining(['openai/whisper-base']) as unknown,
      }),
    ]);
    const byBody = await raw('search', { method: 'QUERY', headers: { 'content-type': 'text/plain' }, body: 'speech' });
    expect(JSON.parse(byBody.text)).toEqual(collections);

    expect((await raw('search')).status).toBe(400);
    expect((await raw('search?query=x&limit=51')).status).toBe(400);
    const posted = await raw('search', { method: 'POST', body: 'speech' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, QUERY');
  });

  it("accounts.current: the account's identity beside its balance", async () => {
    const account = await client().accounts.current();
    expect(account).toMatchObject({
      type: 'organization',
      username: runtime().accountId,
      name: runtime().accountId,
      github_url: null,
    });
  });
});
