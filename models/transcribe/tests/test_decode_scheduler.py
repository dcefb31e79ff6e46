"""The decode scheduler over a stand-in decoder: how the predictions in flight share its passes, and
how a cancel or a failure stays with its own prediction."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest

from decode_scheduler import Canceled, DecodeScheduler, Session
from speech import Stretch


@dataclasses.dataclass
class Said:
    """A segment as the stand-in decoder answers it: the stretch's name, and words where asked."""

    text: str
    words: list[str] | None


class StandIn:
    """A decoder whose first pass waits until it is let go (so that the others queue behind it),
    which records its passes and fails any pass with a stretch named "bad"."""

    batch = 4
    always_aligns = True

    def __init__(self) -> None:
        self.go = threading.Event()
        self.passes: list[tuple[str, list[str]]] = []

    def _passed(self, kind: str, stretches: list[Stretch]) -> list[str]:
        self.go.wait(10)
        names = [name_of(stretch) for stretch in stretches]
        self.passes.append((kind, names))
        if "bad" in names:
            raise ValueError("a stretch the model cannot take")
        return names

    def languages(self, stretches: list[Stretch]) -> list[tuple[str, float]]:
        return [("en", 0.9) for _ in self._passed("languages", stretches)]

    def decode(self, stretches: list[Stretch], language: str, task: str, words: bool) -> list[list[Any]]:
        names = self._passed(f"{language} {task}", stretches)
        return [[Said(name, [name] if words else None)] for name in names]


def stretch(name: str) -> Stretch:
    return Stretch(0, len(name), np.frombuffer(name.encode(), dtype=np.uint8).astype(np.float32))


def name_of(item: Stretch) -> str:
    return item.audio.astype(np.uint8).tobytes().decode()


@pytest.fixture
def decoder() -> Iterator[StandIn]:
    yield StandIn()


@pytest.fixture
def scheduler(decoder: StandIn) -> Iterator[DecodeScheduler]:
    instance = DecodeScheduler(decoder)  # type: ignore[arg-type]
    yield instance
    decoder.go.set()
    instance.close()


def at_once(*asks: Callable[[], Any]) -> list[Any]:
    """Each ask in a thread of its own (a prediction's), started in this order; what each returned
    or raised."""
    with ThreadPoolExecutor(len(asks)) as pool:
        futures = []
        for ask in asks:
            futures.append(pool.submit(ask))
            threading.Event().wait(0.05)  # queued in this order
        return [future.exception() or future.result() for future in futures]


def texts(found: list[list[Said]]) -> list[str]:
    return [segment.text for segments in found for segment in segments]


def test_the_predictions_in_flight_share_passes_of_one_kind_up_to_a_batch(
    decoder: StandIn, scheduler: DecodeScheduler
) -> None:
    a, b, c, d = (scheduler.session() for _ in range(4))
    threading.Timer(0.3, decoder.go.set).start()
    results = at_once(
        lambda: scheduler.decode(a, [stretch("a1")], "en", "transcribe", False),
        lambda: scheduler.decode(b, [stretch("b1"), stretch("b2")], "en", "transcribe", True),
        lambda: scheduler.decode(c, [stretch("c1")], "de", "transcribe", False),
        lambda: scheduler.decode(d, [stretch("d1"), stretch("d2"), stretch("d3")], "en", "transcribe", False),
        lambda: scheduler.languages(a, [stretch("a2")]),
    )
    # The first ask alone (the decoder was idle); then the oldest kind, English, from every
    # prediction that asked for it, up to a batch of 4 (d's third stretch waits for the next one).
    assert decoder.passes == [
        ("en transcribe", ["a1"]),
        ("en transcribe", ["b1", "b2", "d1", "d2"]),
        ("de transcribe", ["c1"]),
        ("en transcribe", ["d3"]),
        ("languages", ["a2"]),
    ]
    assert [texts(found) for found in results[:4]] == [["a1"], ["b1", "b2"], ["c1"], ["d1", "d2", "d3"]]
    assert results[4] == [("en", 0.9)]
    # Word times are kept for the prediction that asked for them only, though its pass timed them all.
    assert [segment.words for segments in results[1] for segment in segments] == [["b1"], ["b2"]]
    assert all(segment.words is None for segments in results[3] for segment in segments)
    assert [(p.key, p.stretches, p.predictions) for p in scheduler.passes][1] == (
        ("decode", "en", "transcribe", None),
        4,
        2,
    )


def test_word_times_are_a_kind_of_their_own_where_they_change_the_decoding(decoder: StandIn) -> None:
    decoder.always_aligns = False
    scheduler = DecodeScheduler(decoder)  # type: ignore[arg-type]
    try:
        a, b, c = (scheduler.session() for _ in range(3))
        threading.Timer(0.3, decoder.go.set).start()
        at_once(
            lambda: scheduler.decode(a, [stretch("a1")], "en", "transcribe", False),
            lambda: scheduler.decode(b, [stretch("b1")], "en", "transcribe", True),
            lambda: scheduler.decode(c, [stretch("c1")], "en", "transcribe", False),
        )
        assert [names for _, names in decoder.passes] == [["a1"], ["b1"], ["c1"]]
    finally:
        scheduler.close()


def test_a_cancel_drops_that_predictions_queued_stretches_and_ends_its_wait(
    decoder: StandIn, scheduler: DecodeScheduler
) -> None:
    a, b, c = (scheduler.session() for _ in range(3))

    def cancel_b_then_go() -> None:
        b.cancel()
        decoder.go.set()

    threading.Timer(0.3, cancel_b_then_go).start()
    results = at_once(
        lambda: scheduler.decode(a, [stretch("a1")], "en", "transcribe", False),
        lambda: scheduler.decode(b, [stretch("b1"), stretch("b2")], "en", "transcribe", False),
        lambda: scheduler.decode(c, [stretch("c1")], "en", "transcribe", False),
    )
    assert isinstance(results[1], Canceled)
    assert [texts(results[0]), texts(results[2])] == [["a1"], ["c1"]]
    assert [names for _, names in decoder.passes] == [["a1"], ["c1"]]
    with pytest.raises(Canceled):
        scheduler.languages(b, [stretch("b3")])


def test_a_pass_that_fails_fails_only_the_prediction_whose_stretch_made_it_fail(
    decoder: StandIn, scheduler: DecodeScheduler
) -> None:
    a, b, c = (scheduler.session() for _ in range(3))
    threading.Timer(0.3, decoder.go.set).start()
    results = at_once(
        lambda: scheduler.languages(a, [stretch("a1")]),
        lambda: scheduler.languages(b, [stretch("b1"), stretch("bad")]),
        lambda: scheduler.languages(c, [stretch("c1")]),
    )
    assert isinstance(results[1], ValueError)
    assert results[0] == results[2] == [("en", 0.9)]
    # The shared pass failed; it was run again one prediction at a time.
    assert decoder.passes[1:] == [
        ("languages", ["b1", "bad", "c1"]),
        ("languages", ["b1", "bad"]),
        ("languages", ["c1"]),
    ]


def test_nothing_to_decode_asks_for_no_pass(decoder: StandIn, scheduler: DecodeScheduler) -> None:
    session: Session = scheduler.session()
    assert scheduler.decode(session, [], "en", "transcribe", False) == []
    assert not scheduler.passes and decoder.passes == []


def test_closing_ends_the_pass_under_way_and_fails_what_is_still_queued(decoder: StandIn) -> None:
    scheduler = DecodeScheduler(decoder)  # type: ignore[arg-type]
    a, b = scheduler.session(), scheduler.session()

    def close_then_go() -> None:
        closing = threading.Thread(target=scheduler.close)
        closing.start()
        threading.Event().wait(0.1)
        decoder.go.set()
        closing.join(5)

    threading.Timer(0.3, close_then_go).start()
    results = at_once(
        lambda: scheduler.decode(a, [stretch("a1")], "en", "transcribe", False),
        lambda: scheduler.decode(b, [stretch("b1")], "en", "transcribe", False),
    )
    assert texts(results[0]) == ["a1"]
    assert isinstance(results[1], RuntimeError) and str(results[1]) == "the decoder has closed"
