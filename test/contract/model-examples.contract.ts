import { describe, expect, it } from 'vitest';
import { formatTimestamp } from '../../shared/domain/clock.ts';
import { newPredictionId } from '../../shared/domain/ids.ts';
import type { ModelExamples } from '../../shared/ports/model-examples.ts';
import { fakeClock } from '../support/in-memory/clock.ts';

export type MakeModelExamples = () => Promise<ModelExamples>;

/** What every ModelExamples does, whatever keeps them. */
export const describeModelExamplesContract = (name: string, make: MakeModelExamples) =>
  describe(`${name}: a model's examples`, () => {
    it('keeps copies in the order they were marked, a page at a time both ways, apart for each model', async () => {
      const examples = await make();
      const clock = fakeClock();
      const model = `acme/examples-${crypto.randomUUID().slice(0, 8)}`;
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) {
        const predictionId = newPredictionId();
        ids.push(predictionId);
        await examples.add({
          model,
          predictionId,
          addedAt: formatTimestamp(clock.now()),
          prediction: { id: predictionId, input: { text: `пример ${n}`, nested: { deep: [n] } } },
        });
        clock.advance(1000);
      }
      await examples.add({
        model: `${model}-other`,
        predictionId: newPredictionId(),
        addedAt: formatTimestamp(clock.now()),
        prediction: {},
      });
      const shown = (page: { items: { predictionId: string }[] }) => page.items.map((example) => example.predictionId);

      const first = await examples.list(model, { limit: 2 });
      expect(shown(first)).toEqual(ids.slice(0, 2));
      expect(first.items[0]?.prediction).toEqual({ id: ids[0], input: { text: 'пример 0', nested: { deep: [0] } } });
      expect(first.previous).toBeNull();
      const second = await examples.list(model, { limit: 2, from: { toward: 'next', position: first.next ?? '' } });
      expect(shown(second)).toEqual(ids.slice(2, 4));
      const last = await examples.list(model, { limit: 2, from: { toward: 'next', position: second.next ?? '' } });
      expect(shown(last)).toEqual(ids.slice(4));
      expect(last.next).toBeNull();
      const back = await examples.list(model, {
        limit: 2,
        from: { toward: 'previous', position: last.previous ?? '' },
      });
      expect(shown(back)).toEqual(ids.slice(2, 4));

      // Marked again: the copy is replaced, its place kept.
      clock.advance(60_000);
      await examples.add({
        model,
        predictionId: ids[0] ?? '',
        addedAt: formatTimestamp(clock.now()),
        prediction: { again: true },
      });
      const again = await examples.list(model, { limit: 10 });
      expect(shown(again)).toEqual(ids);
      expect(again.items[0]?.prediction).toEqual({ again: true });

      expect(await examples.remove(model, ids[1] ?? '')).toBe(true);
      expect(await examples.remove(model, ids[1] ?? '')).toBe(false);
      expect(await examples.remove(`${model}-other`, ids[2] ?? '')).toBe(false);
      expect(shown(await examples.list(model, { limit: 10 }))).toEqual([ids[0], ...ids.slice(2)]);
      expect((await examples.list('acme/none', { limit: 10 })).items).toEqual([]);
    });
  });
