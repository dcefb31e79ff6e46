import { describe, expect, it } from 'vitest';
import { LONGEST_MODEL_ID, MODEL_ID_LIMITS, modelId } from '../../shared/catalog/model-id.ts';
import {
  checkModelNames,
  LONGEST_REGION,
  modelNamesOf,
  NAME_LIMITS,
  nameAfterModel,
  WORKFLOW_NAMES,
} from '../../shared/catalog/resource-names.ts';

const STACK = 'Prognoz';
/** The longest id but for its last character: the two differ only past any cut. */
const ALMOST_LONGEST = `${LONGEST_MODEL_ID.slice(0, -1)}x`;

describe('the names derived from a model id', () => {
  it('stay as they were for the ids of today: a deployed stack renames nothing', () => {
    expect(modelNamesOf(STACK, 'openai/whisper-large-v3-turbo')).toEqual({
      workflow: 'Prognoz-openai-whisper-large-v3-turbo',
      cluster: 'Prognoz-openai-whisper-large-v3-turbo',
      fleetParameter: '/Prognoz/fleets/openai-whisper-large-v3-turbo',
      modelStack: 'OpenaiWhisperLargeV3TurboModel',
    });
    expect(modelNamesOf(STACK, 'prognoz/echo').modelStack).toBe('PrognozEchoModel');
  });

  it('fit every limit for the longest id allowed, and differ for two long ids that differ only at their end', () => {
    const longest = modelNamesOf(STACK, LONGEST_MODEL_ID);
    const almost = modelNamesOf(STACK, ALMOST_LONGEST);
    expect(longest.workflow.length).toBeLessThanOrEqual(NAME_LIMITS.stateMachine);
    expect(longest.cluster.length).toBeLessThanOrEqual(NAME_LIMITS.cluster);
    expect(longest.fleetParameter.length).toBeLessThanOrEqual(NAME_LIMITS.parameter);
    expect(longest.modelStack.length).toBeLessThanOrEqual(NAME_LIMITS.modelStackId + 'Model'.length);
    for (const what of ['workflow', 'cluster', 'modelStack'] as const) expect(longest[what]).not.toBe(almost[what]);
    // The same id gives the same names on every machine and in every process.
    expect(modelNamesOf(STACK, LONGEST_MODEL_ID)).toEqual(longest);
  });

  it('are shortened by one rule: as much of the id as fits, then "-" and 8 hex digits of its hash', () => {
    const name = nameAfterModel('Prognoz-', 'stability-ai/stable-diffusion-xl-base-1.0-with-refiner-and-more', 40);
    expect(name).toMatch(/^Prognoz-stability-ai-stable-dif-[0-9a-f]{8}$/);
    expect(name).toHaveLength(40);
    expect(nameAfterModel('Prognoz-', 'acme/short', 40)).toBe('Prognoz-acme-short');
    expect(() => nameAfterModel('x'.repeat(35), 'acme/short-but-not-enough', 40)).toThrow(/leaves no room/);
  });

  it("give a workflow's ARN within Step Functions' 80 characters of name, whatever the ARN's length", () => {
    const prefix = `arn:aws:states:${LONGEST_REGION}:123456789012:stateMachine:${WORKFLOW_NAMES.prefixOf(STACK)}`;
    for (const id of ['openai/whisper-large-v3-turbo', 'stability-ai/stable-diffusion', LONGEST_MODEL_ID]) {
      const arn = WORKFLOW_NAMES.arnOf(prefix, { id });
      const name = arn.slice(arn.lastIndexOf(':') + 1);
      expect(name).toBe(modelNamesOf(STACK, id).workflow);
      expect(name.length).toBeLessThanOrEqual(NAME_LIMITS.stateMachine);
      expect(arn.startsWith(prefix)).toBe(true);
    }
  });

  it('are refused where two models of one catalog would share one, naming both', () => {
    expect(() => checkModelNames(STACK, ['acme/a.b', 'acme/a-b'])).toThrow(/acme\/a\.b and acme\/a-b/);
    expect(() => checkModelNames(STACK, ['a-b/c', 'a/b-c'])).toThrow(/a-b\/c and a\/b-c/);
    expect(() => checkModelNames(STACK, [LONGEST_MODEL_ID, ALMOST_LONGEST, 'openai/whisper-base'])).not.toThrow();
  });
});

describe('a model id', () => {
  const refusal = (id: string) => {
    const parsed = modelId.safeParse(id);
    return parsed.success ? null : (parsed.error.issues[0]?.message ?? '');
  };

  it('may be as long as its limits, and real ids of every shape', () => {
    for (const id of [
      LONGEST_MODEL_ID,
      'stability-ai/stable-diffusion',
      'black-forest-labs/flux-1.1-pro',
      'a/b',
      'x_y/z.w',
    ])
      expect(refusal(id), id).toBeNull();
  });

  it('is refused past its limits or out of its form, with a message that names it', () => {
    const owner = `${'o'.repeat(MODEL_ID_LIMITS.owner + 1)}/model`;
    const name = `acme/${'n'.repeat(MODEL_ID_LIMITS.name + 1)}`;
    expect(refusal(owner)).toBe(`the model id "${owner}" has an owner of 40 characters, more than 39`);
    expect(refusal(name)).toBe(`the model id "${name}" has a name of 101 characters, more than 100`);
    for (const id of ['Acme/model', 'acme', 'acme/model/extra', '-acme/model', 'acme/.model', 'acme/mo del', ''])
      expect(refusal(id), id).toMatch(
        new RegExp(`^the model id "${id.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" must be`),
      );
  });
});
