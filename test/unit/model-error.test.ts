import { describe, expect, it } from 'vitest';
import { modelErrorOf } from '../../worker/model-server.ts';

describe("a failed run's error, as coglet reports it", () => {
  it("is the model's own words, from a sync predictor or an async one", () => {
    expect(modelErrorOf('Prediction failed: Prediction failed: ModelError: why')).toBe('why');
    expect(modelErrorOf('Prediction failed: Async prediction failed: ModelError: the audio file holds no audio')).toBe(
      'the audio file holds no audio',
    );
  });

  it("is the exception's type and message for any other exception", () => {
    expect(modelErrorOf('Prediction failed: Async prediction failed: ValueError: bad')).toBe('ValueError: bad');
    expect(modelErrorOf(null)).toBeNull();
  });
});
