import type { Page, PageRequest } from '../../../shared/domain/page.ts';

/**
 * One page of `items` as the DynamoDB adapters page them (shared/adapters/keyset-page.ts): each
 * item has a unique position; the list runs in descending or ascending order of them.
 */
export const pageOf = <T>(
  all: readonly T[],
  positionOf: (item: T) => string,
  descending: boolean,
  request: PageRequest,
): Page<T> => {
  const items = [...all].sort((a, b) => (descending ? -1 : 1) * positionOf(a).localeCompare(positionOf(b)));
  const from = request.from;
  // Before `position` in the list's order, whether or not an item is still there.
  const before = (item: T, position: string) =>
    descending ? positionOf(item) > position : positionOf(item) < position;
  if (from === undefined || from.toward === 'next') {
    const rest =
      from === undefined
        ? items
        : items.filter((item) => !before(item, from.position) && positionOf(item) !== from.position);
    const shown = rest.slice(0, request.limit);
    const [first, last] = [shown[0], shown.at(-1)];
    return {
      items: shown,
      next: rest.length > request.limit && last ? positionOf(last) : null,
      previous: from !== undefined && first ? positionOf(first) : null,
    };
  }
  const earlier = items.filter((item) => before(item, from.position));
  const shown = earlier.slice(-request.limit);
  const [first, last] = [shown[0], shown.at(-1)];
  return {
    items: shown,
    next: last ? positionOf(last) : null,
    previous: earlier.length > request.limit && first ? positionOf(first) : null,
  };
};
