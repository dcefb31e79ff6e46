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
