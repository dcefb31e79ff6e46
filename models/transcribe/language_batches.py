"""Stretches decoded in batches of one language, their results handed back in the stretches' order.

A decode pass takes one language (the prompt's language token) and one task. On a GPU a batch of
sixteen stretches costs little more than one, so a clip that switches language must not cut its
batches at every switch: each language fills its own batch, and a full one is decoded. So that no
result is held back long (progress, memory), a language's batch is also decoded, full or not, once
its oldest stretch is `2 × batch` stretches behind the newest. With a batch of one (a CPU) every
stretch is decoded as it comes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class LanguageBatches(Generic[Item, Result]):
    def __init__(self, batch: int, decode: Callable[[str, list[Item]], list[Result]]) -> None:
        self.batch = batch
        self._decode = decode
        self._waiting: dict[str, list[tuple[int, Item]]] = {}
        self._done: dict[int, Result] = {}
        self._added = 0
        self._handed = 0

    def add(self, item: Item, language: str) -> Iterator[Result]:
        """Queues the item; yields every result now ready in order."""
        index = self._added
        self._added += 1
        waiting = self._waiting.setdefault(language, [])
        waiting.append((index, item))
        if len(waiting) >= self.batch:
            self._run(language)
        while self._waiting:
            oldest = self._oldest()
            if index - self._waiting[oldest][0][0] < 2 * self.batch:
                break
            self._run(oldest)
        yield from self._ready()

    @property
    def waiting(self) -> bool:
        """Whether any item waits for its language's batch."""
        return bool(self._waiting)

    def finish(self) -> Iterator[Result]:
        """Decodes what is still waiting, oldest first; yields the rest of the results in order."""
        while self._waiting:
            self._run(self._oldest())
        yield from self._ready()

    def _oldest(self) -> str:
        return min(self._waiting, key=lambda language: self._waiting[language][0][0])

    def _run(self, language: str) -> None:
        queued = self._waiting.pop(language)
        results = self._decode(language, [item for _, item in queued])
        for (index, _), result in zip(queued, results, strict=True):
            self._done[index] = result

    def _ready(self) -> Iterator[Result]:
        while self._handed in self._done:
            yield self._done.pop(self._handed)
            self._handed += 1
