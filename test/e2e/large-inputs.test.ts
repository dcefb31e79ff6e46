import { describe, expect, it } from 'vitest';
import { INPUT_INLINE_BYTES } from '../../shared/domain/prediction.ts';
import {
  call,
  createOtherAccount,
  createPrediction,
  getPrediction,
  rawPredictionItem,
  untilTerminal,
} from '../support/api.ts';

describe('a large input is kept by reference', () => {
  it('stays out of the prediction’s item, and reaches the model, GET and the list whole', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const text = 'ж'.repeat(50_000); // 100 KB of UTF-8
    const created = await createPrediction({ text }, { token });
    expect(created.status).toBe(201);
    expect(created.json.input).toMatchObject({ text });
    const ended = await untilTerminal(created.json.id, 30_000, { token });
    // The echo model returns its text: the worker read the whole input back.
    expect(ended).toMatchObject({ status: 'succeeded', input: { text }, output: { text } });
    expect((await getPrediction(created.json.id, { token })).json.input).toMatchObject({ text });
    const listed = await call<{ results: { id: string; input: { text?: string } }[] }>('predictions', { token });
    expect(listed.json.results.find((p) => p.id === created.json.id)?.input.text).toBe(text);

    const item = await rawPredictionItem(created.json.id);
    expect(item.input_json).toBeUndefined();
    expect(item.input_key).toBe(`inputs/${created.json.id}.json`);
    expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThan(2 * 1024);
  });

  it('a small input stays in the item, read with the prediction in one request', async () => {
    const token = await createOtherAccount({ balanceKopecks: 10_000 });
    const text = 'x'.repeat(INPUT_INLINE_BYTES / 2);
    const created = await createPrediction({ text }, { token });
    await untilTerminal(created.json.id, 30_000, { token });
    const item = await rawPredictionItem(created.json.id);
    expect(item.input_key).toBeUndefined();
    expect(JSON.parse(String(item.input_json))).toMatchObject({ text });
  });
});
