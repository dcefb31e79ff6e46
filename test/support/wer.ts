/** Word error rate: word-level edit distance over the reference length, case and punctuation ignored. */
export const words = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/\//g, ' ')
    .match(/[\p{L}\p{N}']+/gu) ?? [];

export const wordErrorRate = (reference: string, hypothesis: string): number => {
  const ref = words(reference);
  const hyp = words(hypothesis);
  let row = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (const [i, r] of ref.entries()) {
    const next = [i + 1];
    for (const [j, h] of hyp.entries())
      next.push(Math.min((row[j + 1] ?? 0) + 1, (next[j] ?? 0) + 1, (row[j] ?? 0) + (r === h ? 0 : 1)));
    row = next;
  }
  return (row[hyp.length] ?? 0) / ref.length;
};

/** The share of the reference's distinct words that the hypothesis uses (case and punctuation ignored). */
export const sharedVocabulary = (reference: string, hypothesis: string): number => {
  const ref = new Set(words(reference));
  const hyp = new Set(words(hypothesis));
  return [...ref].filter((word) => hyp.has(word)).length / ref.size;
};
