import { afterEach, describe, expect, it, vi } from 'vitest';
import { synthesizedApart, synthesizeTemplateApart } from '../../local/synthesis-process.ts';
import { synthesizeTemplate } from '../../local/synthesize.ts';
import { metadataOf, resourcesOfType, type CfnTemplate } from '../../local/template.ts';
import { EXTRA_CATALOG_ENV, WITHHELD_MODELS_ENV } from '../../shared/config/model-catalog.ts';

const TURBO = 'openai/whisper-large-v3-turbo';

const workflowModels = (template: CfnTemplate) =>
  resourcesOfType(template, 'AWS::StepFunctions::StateMachine').map(([, resource]) => metadataOf(resource, 'model'));

// The local runtime reads its template from a process of its own, which takes the CDK with it when it ends.
describe('the template synthesized in a process of its own', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('is the template synthesized here, for the catalog of the environment it starts with', async () => {
    vi.stubEnv(WITHHELD_MODELS_ENV, '');
    const whole = await synthesizedApart();
    expect(whole).toEqual(synthesizeTemplate());
    // As the local runtime takes it: kept from an earlier start made of the same sources, or made now.
    expect(await synthesizeTemplateApart()).toEqual(whole);
    expect(workflowModels(whole)).toContain(TURBO);

    vi.stubEnv(WITHHELD_MODELS_ENV, TURBO);
    const withheld = workflowModels(await synthesizeTemplateApart());
    expect(withheld).not.toContain(TURBO);
    expect(withheld).toContain('openai/whisper-base');
  });

  it('fails with the reason when the app cannot be synthesized, rather than waiting for a template', async () => {
    vi.stubEnv(EXTRA_CATALOG_ENV, '/nonexistent/prognoz-catalog.json');
    await expect(synthesizeTemplateApart()).rejects.toThrow(/synthesizing the CDK app failed: .*prognoz-catalog\.json/);
  });
});
