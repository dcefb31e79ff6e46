import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { checkOutput, contractOf } from '../../shared/catalog/cog-schema.ts';
import { parseCogConfig } from '../../shared/catalog/cog-config.ts';

/** Cog's schemas of a predictor with every kind of input Cog has (as prognoz_cog.describe derives them). */
const derived = {
  input: {
    type: 'object',
    title: 'Input',
    required: ['prompt', 'images'],
    properties: {
      prompt: {
        'x-order': 0,
        title: 'Prompt',
        type: 'string',
        minLength: 1,
        maxLength: 20,
        description: 'What to draw.',
      },
      steps: { 'x-order': 1, title: 'Steps', type: 'integer', minimum: 1, maximum: 50, default: 20 },
      scale: { 'x-order': 2, title: 'Scale', type: 'number', minimum: 0.5, default: 7.5 },
      sampler: { 'x-order': 3, allOf: [{ $ref: '#/components/schemas/sampler' }], default: 'ddim' },
      size: { 'x-order': 4, allOf: [{ $ref: '#/components/schemas/size' }], default: 512 },
      seed_name: {
        'x-order': 5,
        title: 'Seed Name',
        type: 'string',
        pattern: '^(?P<word>[a-z]+)-(?P=word)$',
        nullable: true,
      },
      images: { 'x-order': 6, title: 'Images', type: 'array', items: { type: 'string', format: 'uri' } },
      mask: { 'x-order': 7, title: 'Mask', type: 'string', format: 'uri', nullable: true },
      api_key: {
        'x-order': 8,
        title: 'Api Key',
        type: 'string',
        format: 'password',
        writeOnly: true,
        'x-cog-secret': true,
        nullable: true,
      },
      tags: { 'x-order': 9, title: 'Tags', type: 'array', items: { type: 'string' }, default: [] },
      upscale: { 'x-order': 10, title: 'Upscale', type: 'boolean', default: false },
    },
  },
  enums: {
    sampler: { title: 'sampler', description: 'An enumeration.', enum: ['ddim', 'euler'], type: 'string' },
    size: { title: 'size', description: 'An enumeration.', enum: [512, 768], type: 'integer' },
  },
  output: {
    title: 'Output',
    type: 'object',
    properties: { image: { type: 'string', format: 'uri', title: 'Image' }, nsfw: { type: 'boolean', nullable: true } },
    required: ['image'],
  },
};

describe("a model contract from Cog's schemas", () => {
  const contract = contractOf(derived, 'acme/draw');
  const valid = { prompt: 'a cat', images: ['https://example.com/a.png'] };

  it("fills defaults and keeps Cog's field order", () => {
    const parsed = contract.input.parse(valid);
    expect(parsed).toEqual({
      prompt: 'a cat',
      steps: 20,
      scale: 7.5,
      sampler: 'ddim',
      size: 512,
      images: ['https://example.com/a.png'],
      tags: [],
      upscale: false,
    });
    expect(Object.keys(contract.input.shape)).toEqual(Object.keys(derived.input.properties));
  });

  it.each([
    [{ ...valid, prompt: '' }, 'prompt'],
    [{ ...valid, prompt: 'x'.repeat(21) }, 'prompt'],
    [{ ...valid, steps: 51 }, 'steps'],
    [{ ...valid, steps: 2.5 }, 'steps'],
    [{ ...valid, scale: 0.1 }, 'scale'],
    [{ ...valid, sampler: 'plms' }, 'sampler'],
    [{ ...valid, size: 600 }, 'size'],
    [{ ...valid, seed_name: 'ab-cd' }, 'seed_name'],
    [{ ...valid, images: ['data:image/png;base64,AA=='] }, 'images'],
    [{ ...valid, mask: 'ftp://example.com/m.png' }, 'mask'],
    [{ prompt: 'a cat' }, 'images'],
    [{ ...valid, colour: 'red' }, 'colour'],
  ])('refuses %j at %s', (input, field) => {
    const parsed = contract.input.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(
      parsed.error?.issues.some(
        (issue) => issue.path[0] === field || (issue.code === 'unrecognized_keys' && issue.keys.includes(field)),
      ),
    ).toBe(true);
  });

  it('accepts Python regexes (named groups, back-references), nulls where Cog allows them, and enums of numbers', () => {
    expect(
      contract.input.safeParse({ ...valid, seed_name: 'ab-ab', mask: null, api_key: null, size: 768 }).success,
    ).toBe(true);
  });

  it("accepts Python's escapes of punctuation (re.escape), in a class and out of one", () => {
    const escaped = {
      type: 'object',
      properties: { model: { 'x-order': 0, type: 'string', pattern: '^large\\-v3\\-turbo\\#[a\\-c\\]]$' } },
    };
    const { input } = contractOf({ ...derived, input: escaped }, 'acme/escaped');
    expect(['large-v3-turbo#-', 'large-v3-turbo#]'].map((model) => input.safeParse({ model }).success)).toEqual([
      true,
      true,
    ]);
    expect(['large-v3-turbo#b', 'largeXv3-turbo#a'].map((model) => input.safeParse({ model }).success)).toEqual([
      false,
      false,
    ]);
  });

  it('knows which inputs are files to fetch and which are secrets', () => {
    expect(contract.files).toEqual([
      { name: 'images', list: true },
      { name: 'mask', list: false },
    ]);
    expect(contract.secrets).toEqual(['api_key']);
  });

  it('streams only an iterator output', () => {
    expect(contract.streams).toBe(false);
    const iterator = {
      type: 'array',
      items: { type: 'string' },
      'x-cog-array-type': 'iterator',
      'x-cog-array-display': 'concatenate',
    };
    expect(contractOf({ ...derived, output: iterator }, 'acme/chat').streams).toBe(true);
    expect(contractOf({ ...derived, output: { type: 'array', items: { type: 'string' } } }, 'acme/list').streams).toBe(
      false,
    );
  });

  it('publishes the secret as write-only and the enums inline', () => {
    const schema = z.toJSONSchema(contract.input, { io: 'input' }) as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(JSON.stringify(schema.properties.api_key)).toContain('"writeOnly":true');
    expect(schema.properties.sampler).toMatchObject({ enum: ['ddim', 'euler'], default: 'ddim' });
  });

  it("checks output against Cog's output schema, keeping fields it does not name", () => {
    expect(contract.output.safeParse({ image: 'https://x/y.png', nsfw: null, extra: 1 })).toMatchObject({
      success: true,
      data: { extra: 1 },
    });
    expect(contract.output.safeParse({ nsfw: false }).success).toBe(false);
  });

  it('takes a union input (anyOf) as any of its types, the value as it came, and refuses any other type', () => {
    const union = contractOf(
      {
        ...derived,
        input: {
          properties: {
            value: { title: 'Value', anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'number' }] },
          },
        },
      },
      'acme/union',
    );
    for (const value of ['a', 3, 1.5]) expect(union.input.parse({ value })).toEqual({ value });
    for (const value of [true, [1], { a: 1 }, null])
      expect(union.input.safeParse({ value }).success, JSON.stringify(value)).toBe(false);
  });

  it('gives None for an omitted input that may be null and has no default, as coglet does', () => {
    // seed_name, mask and api_key: nullable, no default, not required.
    expect(contract.nullWhenOmitted).toEqual(['seed_name', 'mask', 'api_key']);
  });

  it('takes no output (None) from a run of any output type, as Cog does, and still refuses a wrong one', () => {
    expect(checkOutput(contract.output, null)).toEqual({ success: true, data: null });
    expect(checkOutput(contract.output, 'an image').success).toBe(false);
    const text = contractOf({ ...derived, output: { type: 'string' } }, 'acme/text').output;
    expect(checkOutput(text, null).success).toBe(true);
    expect(checkOutput(text, 5).success).toBe(false);
    expect(checkOutput(text, 'words')).toMatchObject({ success: true, data: 'words' });
  });

  it('refuses a Cog type prognoz does not know, naming the model and field', () => {
    expect(() => contractOf({ ...derived, input: { properties: { x: { type: 'tensor' } } } }, 'acme/odd')).toThrow(
      /acme\/odd\.x/,
    );
  });
});

describe('cog.yaml', () => {
  it("reads what a Cog image is built and run from, with Cog's defaults", () => {
    const config = parseCogConfig(
      'build:\n  gpu: true\n  python_version: 3.12\n  python_packages: ["torch==2.5.1"]\n  run:\n    - pip install --no-deps x==1\n    - command: echo hi\npredict: "predict.py:Predictor"\nconcurrency:\n  max: 4\n',
      'cog.yaml',
    );
    expect(config).toEqual({
      gpu: true,
      pythonVersion: '3.12',
      systemPackages: [],
      pythonPackages: ['torch==2.5.1'],
      pythonRequirements: null,
      run: ['pip install --no-deps x==1', 'echo hi'],
      predict: 'predict.py:Predictor',
      predictKey: 'predict',
      concurrency: 4,
      environment: {},
    });
    expect(parseCogConfig('predict: "p.py:P"', 'cog.yaml')).toMatchObject({
      gpu: false,
      pythonVersion: '3.11',
      concurrency: 1,
    });
  });

  it('says what is wrong with a cog.yaml that prognoz cannot run', () => {
    expect(() => parseCogConfig('build: {}', 'acme/cog.yaml')).toThrow(/acme\/cog.yaml: names no predictor/);
    expect(() => parseCogConfig('predict: "p.py:P"\nconcurrency: {max: 0}', 'cog.yaml')).toThrow(/concurrency.max/);
    expect(() => parseCogConfig('predict: [', 'cog.yaml')).toThrow(/not valid YAML/);
  });
});
