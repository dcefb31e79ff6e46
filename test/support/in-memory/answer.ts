/** Runs `work` as an adapter's call: its result, or what it throws, comes back as the promise's. */
export const answer = <T>(work: () => T): Promise<T> => Promise.resolve().then(work);
