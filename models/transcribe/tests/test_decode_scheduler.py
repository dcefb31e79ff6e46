"""The decode scheduler over a stand-in decoder: how the predictions in flight share its passes, and
how a cancel or a failure stays with its own prediction."""

from __future__ import annotations

import dataclasses
import gc
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

    def piece_languages(self, packs: list[Stretch]) -> list[list[tuple[str, float]]]:
        return [[("de", 0.9)] * len(name) for name in self._passed("piece languages", packs)]

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


def test_the_languages_of_packed_stretches_are_a_kind_of_pass_of_their_own(
    decoder: StandIn, scheduler: DecodeScheduler
) -> None:
    a, b = scheduler.session(), scheduler.session()
    threading.Timer(0.3, decoder.go.set).start()
    results = at_once(
        lambda: scheduler.languages(a, [stretch("a1")]),
        lambda: scheduler.piece_languages(a, [stretch("a23")]),
        lambda: scheduler.piece_languages(b, [stretch("b1"), stretch("b23")]),
    )
    assert decoder.passes == [("languages", ["a1"]), ("piece languages", ["a23", "b1", "b23"])]
    # One language a piece of each pack (the stand-in's pack has as many pieces as its name letters).
    assert results[1] == [[("de", 0.9)] * 3]
    assert results[2] == [[("de", 0.9)] * 2, [("de", 0.9)] * 3]


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


@pytest.fixture
def filling(decoder: StandIn) -> Iterator[DecodeScheduler]:
    """A CPU's scheduler: a pass waits for the sessions that have not asked, here for up to a minute
    (so that only an ask, an end or a cancel can let it go within a test's time)."""
    decoder.go.set()
    instance = DecodeScheduler(decoder, fill_wait=60)  # type: ignore[arg-type]
    yield instance
    instance.close()


def test_a_pass_waits_for_the_predictions_still_reading_their_audio(decoder: StandIn, filling: DecodeScheduler) -> None:
    a, b, c = (filling.session() for _ in range(3))
    # c asks last, 0.05 s after b: the first pass waits for it, and all three share it.
    results = at_once(
        lambda: filling.decode(a, [stretch("a1")], "en", "transcribe", False),
        lambda: filling.decode(b, [stretch("b1")], "en", "transcribe", False),
        lambda: filling.decode(c, [stretch("c1")], "en", "transcribe", False),
    )
    assert decoder.passes == [("en transcribe", ["a1", "b1", "c1"])]
    assert [texts(found) for found in results] == [["a1"], ["b1"], ["c1"]]


def test_a_pass_does_not_wait_for_a_prediction_that_ended_or_was_canceled(
    decoder: StandIn, filling: DecodeScheduler
) -> None:
    a, b, c = (filling.session() for _ in range(3))
    with ThreadPoolExecutor(1) as pool:
        asked = pool.submit(filling.decode, a, [stretch("a1")], "en", "transcribe", False)
        threading.Event().wait(0.2)
        assert not asked.done() and decoder.passes == []  # b and c have not asked yet
        filling.end(b)
        threading.Event().wait(0.2)
        assert not asked.done()  # c still may
        c.cancel()
        assert texts(asked.result(timeout=10)) == ["a1"]
    assert decoder.passes == [("en transcribe", ["a1"])]


def test_a_full_pass_and_a_prediction_alone_do_not_wait(decoder: StandIn, filling: DecodeScheduler) -> None:
    a = filling.session()
    assert texts(filling.decode(a, [stretch("a1")], "en", "transcribe", False)) == ["a1"]
    b = filling.session()
    found = filling.decode(a, [stretch(f"a{k}") for k in range(2, 6)], "en", "transcribe", False)
    assert texts(found) == ["a2", "a3", "a4", "a5"]  # a batch of 4: b not waited for
    filling.end(a)
    assert texts(filling.decode(b, [stretch("b1")], "en", "transcribe", False)) == ["b1"]  # alone now


def test_a_pass_waits_no_longer_than_its_fill_wait(decoder: StandIn) -> None:
    decoder.go.set()
    scheduler = DecodeScheduler(decoder, fill_wait=0.5)  # type: ignore[arg-type]
    try:
        a, _never_asks = scheduler.session(), scheduler.session()
        with ThreadPoolExecutor(1) as pool:
            asked = pool.submit(scheduler.decode, a, [stretch("a1")], "en", "transcribe", False)
            threading.Event().wait(0.2)
            assert not asked.done()
            assert texts(asked.result(timeout=10)) == ["a1"]
    finally:
        scheduler.close()


def test_a_session_left_without_an_end_is_not_waited_for_once_it_is_gone(decoder: StandIn) -> None:
    decoder.go.set()
    scheduler = DecodeScheduler(decoder, fill_wait=60)  # type: ignore[arg-type]
    try:
        a = scheduler.session()
        scheduler.session()  # dropped at once, never ended
        gc.collect()
        with ThreadPoolExecutor(1) as pool:
            assert texts(pool.submit(scheduler.decode, a, [stretch("a1")], "en", "transcribe", False).result(10)) == [
                "a1"
            ]
    finally:
        scheduler.close()


class Held(StandIn):
    """A decoder whose passes of the stretches named in `held` wait until `go`, the others not;
    which records the passes under way at most at once."""

    def __init__(self, held: set[str]) -> None:
        super().__init__()
        self.held = held
        self.under_way = 0
        self.most_at_once = 0
        self._count = threading.Lock()

    def _passed(self, kind: str, stretches: list[Stretch]) -> list[str]:
        names = [name_of(stretch) for stretch in stretches]
        with self._count:
            self.under_way += 1
            self.most_at_once = max(self.most_at_once, self.under_way)
        try:
            if self.held & set(names):
                self.go.wait(10)
            self.passes.append((kind, names))
            return names
        finally:
            with self._count:
                self.under_way -= 1


def test_lanes_run_passes_at_once_while_one_is_held() -> None:
    decoder = Held({"a1"})
    scheduler = DecodeScheduler(decoder, lanes=2, batch=2)  # type: ignore[arg-type]
    try:
        a, b, c = (scheduler.session() for _ in range(3))
        with ThreadPoolExecutor(3) as pool:
            held = pool.submit(scheduler.decode, a, [stretch("a1"), stretch("a2")], "en", "transcribe", False)
            threading.Event().wait(0.2)
            # a's pass holds one lane; b's and c's go through the other, in passes of at most 2.
            assert texts(pool.submit(scheduler.decode, b, [stretch("b1")], "en", "transcribe", False).result(5)) == [
                "b1"
            ]
            found = pool.submit(scheduler.decode, c, [stretch(f"c{k}") for k in range(1, 4)], "en", "transcribe", False)
            assert texts(found.result(5)) == ["c1", "c2", "c3"]
            assert not held.done() and decoder.most_at_once == 2
            decoder.go.set()
            assert texts(held.result(5)) == ["a1", "a2"]
        assert decoder.passes[-1] == ("en transcribe", ["a1", "a2"])
        assert [names for _, names in decoder.passes[:-1]] == [["b1"], ["c1", "c2"], ["c3"]]
    finally:
        decoder.go.set()
        scheduler.close()


def test_a_pass_does_not_wait_for_a_prediction_in_another_lanes_pass() -> None:
    # A CPU's scheduler in two lanes, waiting up to a minute to fill a pass: a's and b's pass is
    # held in one lane, and c's pass, alone in the other, does not wait for them to ask again.
    decoder = Held({"a1"})
    scheduler = DecodeScheduler(decoder, fill_wait=60, lanes=2, batch=2)  # type: ignore[arg-type]
    try:
        a, b, c = (scheduler.session() for _ in range(3))
        with ThreadPoolExecutor(3) as pool:
            held = [
                pool.submit(scheduler.decode, s, [stretch(f"{n}1")], "en", "transcribe", False)
                for s, n in ((a, "a"), (b, "b"))
            ]
            threading.Event().wait(0.2)
            assert texts(pool.submit(scheduler.decode, c, [stretch("c1")], "en", "transcribe", False).result(5)) == [
                "c1"
            ]
            decoder.go.set()
            assert [texts(future.result(5)) for future in held] == [["a1"], ["b1"]]
    finally:
        decoder.go.set()
        scheduler.close()
