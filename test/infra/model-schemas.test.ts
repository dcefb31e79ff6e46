import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deriveManifestModels, SCHEMAS_FILE } from '../../scripts/derive-models.ts';

describe('models/schemas.json', () => {
  it("is what the manifest's predictors derive today (`npm run models` rewrites it)", async () => {
    const committed = JSON.parse(readFileSync(SCHEMAS_FILE, 'utf8')) as unknown;
    // Derived the same, each keeps the time it was first derived so.
    expect(await deriveManifestModels()).toEqual(committed);
  }, 120_000);
});
