import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXTRA_CATALOG_ENV, WITHHELD_MODELS_ENV } from '../../shared/config/model-catalog.ts';
import { keepTemplate, keptTemplate, templateKey } from '../../local/template-cache.ts';

const folder = mkdtempSync(path.join(tmpdir(), 'prognoz-template-key-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("the local runtime's kept templates", () => {
  it('are keyed by what shapes the app: the models withheld, the extra catalog by its content, the CDK environment', () => {
    const base = templateKey({ PATH: '/usr/bin' });
    expect(templateKey({ PATH: '/bin', HOME: '/root', PROGNOZ_DATA_DIR: '/elsewhere' })).toBe(base);
    expect(templateKey({ [WITHHELD_MODELS_ENV]: 'openai/whisper-base' })).not.toBe(base);
    expect(templateKey({ CDK_DEFAULT_REGION: 'eu-central-1' })).not.toBe(base);
    const catalog = path.join(folder, 'catalog.json');
    writeFileSync(catalog, '{"models":[]}');
    const first = templateKey({ [EXTRA_CATALOG_ENV]: catalog });
    expect(first).not.toBe(base);
    writeFileSync(catalog, '{"models":[],"derived":{}}');
    expect(templateKey({ [EXTRA_CATALOG_ENV]: catalog })).not.toBe(first);
    expect(templateKey({ [EXTRA_CATALOG_ENV]: path.join(folder, 'absent.json') })).not.toBe(base);
  });

  it('give back what was kept under a key, and nothing under another', () => {
    const key = `test-${process.pid}-${Date.now()}`;
    expect(keptTemplate(key)).toBeNull();
    keepTemplate(key, { Resources: { Table: { Type: 'AWS::DynamoDB::GlobalTable' } } });
    expect(keptTemplate(key)).toEqual({ Resources: { Table: { Type: 'AWS::DynamoDB::GlobalTable' } } });
    expect(keptTemplate(`${key}-other`)).toBeNull();
  });
});
