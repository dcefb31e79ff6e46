/**
 * A page of a list that pages by position (files, a model's examples): where it starts, and the
 * positions the pages beside it start from. A position is the adapter's own, opaque to the rest.
 */
export interface PageRequest {
  /** Where the page starts: past `position` in the list's order (`next`), or before it (`previous`); none: the list's start. */
  readonly from?: { readonly toward: 'next' | 'previous'; readonly position: string };
  readonly limit: number;
}

export interface Page<T> {
  readonly items: T[];
  /** Where the next page starts; null at the list's end. */
  readonly next: string | null;
  /** Where the page before starts; null at the list's start. */
  readonly previous: string | null;
}

/**
 * A position of the lists that page by when an item was made and its id (files, a model's
 * examples): `<stored time>#<id>`, as their sort keys end (shared/adapters/table-keys.ts).
 */
export const TIMED_POSITION = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[A-Za-z0-9_-]+$/;
