import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { notOfferedLine, offeredLocally } from '../../local/weights.ts';
import manifestJson from '../../models/manifest.json' with { type: 'json' };
import { manifestEntry } from '../../shared/catalog/manifest.ts';
import { loadModelCatalog, WITHHELD_MODELS_ENV } from '../../shared/config/model-catalog.ts';
import { testCatalog } from '../support/catalog.ts';

const TURBO = 'openai/whisper-large-v3-turbo';

describe('whether the local runtime offers a model that requires weights', () => {
  const weightsDir = mkdtempSync(path.join(tmpdir(), 'prognoz-weights-'));
  afterAll(() => rmSync(weightsDir, { recursive: true, force: true }));
  const turbo = testCatalog.require(TURBO);

  it('says so in the manifest: large-v3-turbo', () => {
    expect(turbo.local).toEqual({ requiresWeights: 'large-v3-turbo' });
  });

  it('does not offer it while the weights folder lacks them, even as an empty folder', () => {
    expect(offeredLocally(turbo, weightsDir)).toBe(false);
    mkdirSync(path.join(weightsDir, 'large-v3-turbo'));
    expect(offeredLocally(turbo, weightsDir)).toBe(false);
  });

  it('offers it once model.bin is there', () => {
    mkdirSync(path.join(weightsDir, 'large-v3-turbo'), { recursive: true });
    writeFileSync(path.join(weightsDir, 'large-v3-turbo', 'model.bin'), 'x');
    expect(offeredLocally(turbo, weightsDir)).toBe(true);
  });

  it('also takes the folder an image has (/opt/whisper/<name>)', () => {
    const seen: string[] = [];
    const exists = (file: string) => (seen.push(file), file === '/opt/whisper/large-v3-turbo/model.bin');
    expect(offeredLocally(turbo, path.join(weightsDir, 'nothing'), exists)).toBe(true);
    expect(seen).toContain('/opt/whisper/large-v3-turbo/model.bin');
  });

  it('always offers a model that requires no weights', () => {
    expect(offeredLocally(testCatalog.require('openai/whisper-base'), path.join(weightsDir, 'nothing'))).toBe(true);
  });

  it('tells the user how to fetch the weights', () => {
    expect(notOfferedLine(turbo, '/srv/weights')).toMatch(
      /^openai\/whisper-large-v3-turbo: not offered, its weights are not in \/srv\/weights\/large-v3-turbo; .*`npm run weights -- large-v3-turbo`/,
    );
  });

  it('takes only a folder name as the weights a model requires', () => {
    const echo = manifestJson.models.find((model) => model.id === 'prognoz/echo');
    expect(manifestEntry.safeParse({ ...echo, local: { requiresWeights: 'large-v3-turbo' } }).success).toBe(true);
    for (const local of [
      { requiresWeights: '../etc' },
      { requiresWeights: '' },
      { requiresWeights: 'x', other: 1 },
      { weights: 'x' },
    ]) {
      expect(manifestEntry.safeParse({ ...echo, local }).success, JSON.stringify(local)).toBe(false);
    }
  });
});

describe('a model the local runtime withholds', () => {
  it('is neither listed nor found, as an unknown model; its predictions still find their price and limits', () => {
    // The local runtime names it in the environment of every process it starts (local/runtime.ts).
    expect(loadModelCatalog({ [WITHHELD_MODELS_ENV]: '' }).offered.map((model) => model.id)).toContain(TURBO);
    const catalog = loadModelCatalog({ [WITHHELD_MODELS_ENV]: TURBO });
    expect(catalog.offered.map((model) => model.id)).not.toContain(TURBO);
    expect(catalog.offered.map((model) => model.id)).toContain('openai/whisper-base');
    expect(catalog.find(TURBO)).toBeUndefined();
    expect(catalog.all.map((model) => model.id)).toContain(TURBO);
    expect(catalog.require(TURBO).pricePerSecond).toBe('0.12');
  });
});
