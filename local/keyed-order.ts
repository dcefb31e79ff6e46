/**
 * What a piece of work touches: keys it reads and keys it writes, or everything at once (a
 * barrier). Work that shares no written key with another runs beside it.
 */
export type OrderClaim =
  | { readonly kind: 'keys'; readonly reads: readonly string[]; readonly writes: readonly string[] }
  | { readonly kind: 'barrier' };

export const BARRIER: OrderClaim = { kind: 'barrier' };

interface KeyState {
  /** The last writer admitted on the key, until it ends. */
  lastWrite: Promise<void> | null;
  /** The readers admitted since that writer: the next writer waits for them all. */
  readonly readsSince: Set<Promise<void>>;
  /** Admitted work that claims the key and has not ended: the key is forgotten at 0. */
  holders: number;
}

/**
 * Runs work in arrival order where it conflicts, and side by side where it does not: a writer of a
 * key waits for every earlier claim on it, a reader for the earlier writers; a barrier waits for
 * everything admitted before it, and everything admitted after it waits for it. Every key of a
 * claim is taken at once, when the work arrives, and work waits only for work that arrived
 * earlier, so no two pieces ever wait for each other.
 */
export class KeyedOrder {
  readonly #keys = new Map<string, KeyState>();
  /** Every admitted piece of work that has not ended: what the next barrier waits for. */
  readonly #unfinished = new Set<Promise<void>>();
  #barrier: Promise<void> | null = null;

  /** How many keys are claimed now (0 at rest: nothing is kept once its work ends). */
  get claimedKeys(): number {
    return this.#keys.size;
  }

  run<T>(claim: OrderClaim, work: () => Promise<T>): Promise<T> {
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const waits = claim.kind === 'barrier' ? this.#admitBarrier(ended) : this.#admitKeys(claim, ended);
    this.#unfinished.add(ended);
    const release = () => {
      end();
      this.#unfinished.delete(ended);
      if (this.#barrier === ended) this.#barrier = null;
      if (claim.kind === 'keys') this.#releaseKeys(claim, ended);
    };
    const started = waits.length === 0 ? Promise.resolve() : Promise.all(waits);
    return started.then(work).finally(release);
  }

  #admitBarrier(ended: Promise<void>): Promise<void>[] {
    const waits = [...this.#unfinished];
    this.#barrier = ended;
    return waits;
  }

  #admitKeys(claim: { readonly reads: readonly string[]; readonly writes: readonly string[] }, ended: Promise<void>) {
    const waits: Promise<void>[] = this.#barrier ? [this.#barrier] : [];
    const writes = new Set(claim.writes);
    for (const key of writes) {
      const state = this.#stateOf(key);
      if (state.lastWrite) waits.push(state.lastWrite);
      waits.push(...state.readsSince);
      state.lastWrite = ended;
      state.readsSince.clear();
      state.holders += 1;
    }
    for (const key of new Set(claim.reads)) {
      if (writes.has(key)) continue;
      const state = this.#stateOf(key);
      if (state.lastWrite) waits.push(state.lastWrite);
      state.readsSince.add(ended);
      state.holders += 1;
    }
    return waits;
  }

  #releaseKeys(claim: { readonly reads: readonly string[]; readonly writes: readonly string[] }, ended: Promise<void>) {
    for (const key of new Set([...claim.writes, ...claim.reads])) {
      const state = this.#keys.get(key);
      if (!state) continue;
      if (state.lastWrite === ended) state.lastWrite = null;
      state.readsSince.delete(ended);
      state.holders -= 1;
      if (state.holders === 0) this.#keys.delete(key);
    }
  }

  #stateOf(key: string): KeyState {
    let state = this.#keys.get(key);
    if (!state) {
      state = { lastWrite: null, readsSince: new Set(), holders: 0 };
      this.#keys.set(key, state);
    }
    return state;
  }
}
