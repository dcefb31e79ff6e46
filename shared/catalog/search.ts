import type { ModelDefinition } from './definition.ts';
import type { Collection, ModelCatalog } from './model-catalog.ts';

/**
 * Search of the catalog by words (`GET /search`, `QUERY /search`, `QUERY /models`): a model
 * matches when every word of the query is in its id, its description, its README or the name of a
 * collection it is in; it ranks by where the words are. A collection matches by its own slug, name
 * and description. A function of the catalog and the query alone.
 */

/** What one word found in each field is worth: its id names a model most surely, a README least. */
const WEIGHT = { idWord: 8, idPart: 4, description: 3, collection: 2, readme: 1 } as const;

export interface ModelHit {
  readonly model: ModelDefinition;
  readonly score: number;
  /** The slugs of the collections it is in. */
  readonly tags: readonly string[];
}

export interface SearchResult {
  readonly models: readonly ModelHit[];
  readonly collections: readonly Collection[];
}

/** Lower-case words of letters and digits, in any script (`Whisper-base` → `whisper`, `base`). */
export const wordsOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

const countOf = (words: readonly string[], word: string): number =>
  words.reduce((count, candidate) => count + (candidate.startsWith(word) ? 1 : 0), 0);

/** What `word` is worth in `model`'s fields; 0 where it is in none of them. */
const scoreOfWord = (
  word: string,
  fields: {
    readonly id: string;
    readonly idWords: string[];
    readonly description: string[];
    readonly collections: string[];
    readonly readme: string[];
  },
): number => {
  const inId = fields.idWords.includes(word) ? WEIGHT.idWord : fields.id.includes(word) ? WEIGHT.idPart : 0;
  const inDescription = countOf(fields.description, word) > 0 ? WEIGHT.description : 0;
  const inCollections = countOf(fields.collections, word) > 0 ? WEIGHT.collection : 0;
  // Repeated in a README, a word says more of the model, with diminishing returns.
  const readmeCount = countOf(fields.readme, word);
  const inReadme = readmeCount === 0 ? 0 : WEIGHT.readme * (1 + Math.log2(readmeCount));
  return inId + inDescription + inCollections + inReadme;
};

/** The offered models and the collections `query` finds, best first; `limit` bounds the models. */
export const searchCatalog = (
  catalog: Pick<ModelCatalog, 'offered' | 'collections'>,
  query: string,
  limit: number,
): SearchResult => {
  const words = [...new Set(wordsOf(query))];
  if (words.length === 0) return { models: [], collections: [] };
  const models: ModelHit[] = [];
  for (const model of catalog.offered) {
    const memberOf = catalog.collections.filter((collection) => collection.models.some((m) => m.id === model.id));
    const fields = {
      id: model.id.toLowerCase(),
      idWords: wordsOf(model.id),
      description: wordsOf(model.description),
      collections: memberOf.flatMap((collection) => wordsOf(`${collection.slug} ${collection.name}`)),
      readme: wordsOf(model.readme ?? ''),
    };
    const scores = words.map((word) => scoreOfWord(word, fields));
    if (scores.some((score) => score === 0)) continue;
    const score = scores.reduce((sum, value) => sum + value, 0) / words.length;
    models.push({ model, score: Math.round(score * 1000) / 1000, tags: memberOf.map((collection) => collection.slug) });
  }
  models.sort((a, b) => b.score - a.score || a.model.id.localeCompare(b.model.id));
  const collections = catalog.collections.filter((collection) => {
    const text = wordsOf(`${collection.slug} ${collection.name} ${collection.description}`);
    return words.every((word) => countOf(text, word) > 0);
  });
  return { models: models.slice(0, limit), collections };
};
