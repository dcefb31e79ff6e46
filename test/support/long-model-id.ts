/**
 * A brought model's id of 60 characters (the function predictor, test/fixtures/cog/function):
 * longer than any AWS name allowed it before names were shortened by rule, as real ids are.
 */
export const LONG_MODEL_ID = 'acme-speech-research-laboratories/plain-function-predictor-2';
