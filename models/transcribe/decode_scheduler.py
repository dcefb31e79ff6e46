"""One decoder for every prediction in flight: the passes of concurrent transcriptions gathered
into shared batches.

Each prediction (a Session) asks for its stretches' languages, or for them decoded in one language
and task, and waits. A loop takes what is asked, oldest first, and runs passes of up to `batch`
stretches of one kind (a pass takes one language and one task) over whichever predictions asked
for that kind. A GPU decodes sixteen stretches for little more than one, so the few stretches of
concurrent short clips share its passes; with a batch of one the loop serves the predictions in
turn. Every model call is made in a loop's thread; what a thread's calls depend on (the encoder
memo's owners, the padding of windows, the pipeline's last word) is that thread's own.

On a CPU a pass of one stretch costs nearly twice as much a stretch as a pass of eight, so there a
pass waits a moment (`fill_wait`) for the predictions still reading their audio toward their next
ask: those that arrived together share their passes, rather than the first to find speech taking
a pass alone while the others queue behind it.

On a CPU, too, the loop runs in `lanes` threads at once, each a pass at a time on a CTranslate2
worker of its own (decoding.cpu_lanes): on 2 cores, two passes of four on a thread each take less
time than one pass of eight on both, whose every operation is split and joined.

A canceled session's stretches still queued are dropped (a pass already under way finishes, its
results unused). A pass that fails is run again a prediction at a time, so that only the
prediction whose audio makes it fail fails.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import threading
import time
import weakref
from typing import Any

from decoding import Decoder, Detected
from encoder_memo import EncoderMemo
from speech import Stretch

#: The key of a request for languages; a decode's is ("decode", language, task, words or None).
LANGUAGES = ("languages",)
#: The key of a request for the languages of packed stretches (Decoder.piece_languages).
PIECE_LANGUAGES = ("piece languages",)


class Canceled(Exception):
    """The prediction was canceled: what it waits for will not come."""


class Session:
    """One prediction's standing with the scheduler."""

    def __init__(self, scheduler: DecodeScheduler) -> None:
        self._scheduler = scheduler
        self.canceled = threading.Event()
        self.pending: set[_Request] = set()

    def cancel(self) -> None:
        """Drops what it has queued and ends its waits at once; its thread stops at its next ask."""
        self.canceled.set()
        self._scheduler.drop(self)

    def check(self) -> None:
        if self.canceled.is_set():
            raise Canceled()


@dataclasses.dataclass(eq=False)
class _Request:
    session: Session
    key: tuple[Any, ...]
    stretches: list[Stretch]
    words: bool
    results: list[Any] = dataclasses.field(default_factory=list)
    #: How many of its stretches passes have taken, and how many results are still to come.
    taken: int = 0
    left: int = 0
    error: BaseException | None = None
    done: threading.Event = dataclasses.field(default_factory=threading.Event)
    asked_at: float = dataclasses.field(default_factory=time.monotonic)


#: A share of a pass: a request and the range of its stretches the pass decodes.
_Share = tuple[_Request, int, int]


@dataclasses.dataclass(frozen=True)
class Pass:
    """What one pass decoded (kept for the tests and the logs of a benchmark)."""

    key: tuple[Any, ...]
    stretches: int
    predictions: int


class DecodeScheduler:
    def __init__(
        self,
        decoder: Decoder,
        memo: EncoderMemo | None = None,
        fill_wait: float = 0.0,
        lanes: int = 1,
        batch: int | None = None,
    ) -> None:
        """`fill_wait`: seconds at most that a pass not yet full waits, from its oldest ask, for the
        sessions that have not asked (none: a pass takes what is queued at once). `lanes`: passes
        run at once, each in a thread of its own. `batch`: stretches a pass takes at most (the
        decoder's batch unless given)."""
        self.decoder = decoder
        self.batch = min(batch or decoder.batch, decoder.batch)
        self.fill_wait = fill_wait
        self._memo = memo
        self._lock = threading.Condition()
        self._queue: list[_Request] = []
        #: Sessions that may still ask (weakly held: one dropped without end() stops counting).
        self._live: weakref.WeakSet[Session] = weakref.WeakSet()
        #: Sessions with stretches in a pass under way: no pass waits for them to ask.
        self._running: collections.Counter[Session] = collections.Counter()
        self._closed = False
        #: The latest passes, oldest first.
        self.passes: collections.deque[Pass] = collections.deque(maxlen=1000)
        self._threads = [
            threading.Thread(target=self._loop, name=f"whisper-decoder-{lane}", daemon=True)
            for lane in range(max(1, lanes))
        ]
        for thread in self._threads:
            thread.start()

    def session(self) -> Session:
        session = Session(self)
        with self._lock:
            self._live.add(session)
        return session

    def end(self, session: Session) -> None:
        """The session will ask for nothing more: no pass waits for it, and none of the encoder
        outputs its passes made is needed any more."""
        self.release(session)
        with self._lock:
            self._live.discard(session)
            self._lock.notify_all()

    def languages(self, session: Session, stretches: list[Stretch]) -> list[Detected]:
        return self._ask(session, LANGUAGES, stretches, False)

    def piece_languages(self, session: Session, packs: list[Stretch]) -> list[list[Detected]]:
        return self._ask(session, PIECE_LANGUAGES, packs, False)

    def decode(self, session: Session, stretches: list[Stretch], language: str, task: str, words: bool) -> list[Any]:
        """Per stretch, its segments (Decoder.decode)."""
        # Where word times cost a pass nothing, stretches with and without them share it.
        key = ("decode", language, task, None if self.decoder.always_aligns else words)
        return self._ask(session, key, stretches, words)

    def release(self, session: Session) -> None:
        """The session needs none of the encoder outputs its passes made any more."""
        if self._memo is not None:
            self._memo.release(session)

    def drop(self, session: Session) -> None:
        with self._lock:
            self._queue = [request for request in self._queue if request.session is not session]
            for request in session.pending:
                self._fail(request, Canceled())
            self._live.discard(session)
            self._lock.notify_all()

    def close(self) -> None:
        """Stops the loop after its pass under way; what is still queued fails."""
        with self._lock:
            self._closed = True
            for request in list(self._queue):
                self._fail(request, RuntimeError("the decoder has closed"))
            self._lock.notify_all()
        for thread in self._threads:
            thread.join()

    def _ask(self, session: Session, key: tuple[Any, ...], stretches: list[Stretch], words: bool) -> list[Any]:
        session.check()
        if not stretches:
            return []
        request = _Request(session, key, list(stretches), words, [None] * len(stretches), left=len(stretches))
        with self._lock:
            if self._closed:
                raise RuntimeError("the decoder has closed")
            session.check()
            self._queue.append(request)
            session.pending.add(request)
            self._lock.notify_all()
        try:
            request.done.wait()
        finally:
            with self._lock:
                session.pending.discard(request)
        if request.error is not None:
            raise request.error
        return request.results

    def _loop(self) -> None:
        while True:
            with self._lock:
                while not self._closed:
                    if not self._queue:
                        self._lock.wait()
                        continue
                    wait = self._fill_wait_left()
                    if wait <= 0:
                        break
                    self._lock.wait(wait)
                if self._closed:
                    return
                shares = self._take()
                sessions = {request.session for request, _, _ in shares}
                self._running.update(sessions)
            try:
                self._run(shares)
            finally:
                with self._lock:
                    self._running -= collections.Counter(sessions)
                    self._lock.notify_all()

    def _fill_wait_left(self) -> float:
        """Seconds the next pass waits on for more asks: none once it would be full, once every live
        session has asked or is in a pass under way, or once its oldest ask has waited `fill_wait`."""
        if self.fill_wait <= 0:
            return 0.0
        key = self._queue[0].key
        if sum(len(r.stretches) - r.taken for r in self._queue if r.key == key) >= self.batch:
            return 0.0
        asking = {request.session for request in self._queue} | set(self._running)
        if all(session in asking for session in self._live):
            return 0.0
        return self._queue[0].asked_at + self.fill_wait - time.monotonic()

    def _take(self) -> list[_Share]:
        """The oldest request's kind, from the requests of that kind in the order they came, up to
        a batch (a request may be split over passes)."""
        key = self._queue[0].key
        shares: list[_Share] = []
        room = self.batch
        for request in self._queue:
            if request.key != key or room == 0:
                continue
            count = min(room, len(request.stretches) - request.taken)
            shares.append((request, request.taken, request.taken + count))
            request.taken += count
            room -= count
        self._queue = [request for request in self._queue if request.taken < len(request.stretches)]
        return shares

    def _run(self, shares: list[_Share]) -> None:
        key = shares[0][0].key
        words = any(request.words for request, _, _ in shares)
        stretches = [stretch for request, start, end in shares for stretch in request.stretches[start:end]]
        sessions = list(dict.fromkeys(request.session for request, _, _ in shares))
        try:
            with self._memo.serving(sessions) if self._memo is not None else contextlib.nullcontext():
                results = self._pass(key, stretches, words)
        except Exception as error:  # noqa: BLE001 - told to the predictions the pass was for
            if len(sessions) > 1:
                for session in sessions:
                    self._run([share for share in shares if share[0].session is session])
                return
            with self._lock:
                for request, _, _ in shares:
                    self._fail(request, error)
            return
        self.passes.append(Pass(key, len(stretches), len(sessions)))
        at = 0
        with self._lock:
            for request, start, end in shares:
                given = results[at : at + end - start]
                at += end - start
                if request.done.is_set():
                    continue
                if key[0] == "decode" and words and not request.words:
                    given = [[dataclasses.replace(segment, words=None) for segment in found] for found in given]
                request.results[start:end] = given
                request.left -= end - start
                if request.left == 0:
                    request.done.set()

    def _pass(self, key: tuple[Any, ...], stretches: list[Stretch], words: bool) -> list[Any]:
        if key == LANGUAGES:
            return self.decoder.languages(stretches)
        if key == PIECE_LANGUAGES:
            return self.decoder.piece_languages(stretches)
        _, language, task, _ = key
        return self.decoder.decode(stretches, language, task, words)

    def _fail(self, request: _Request, error: BaseException) -> None:
        if not request.done.is_set():
            request.error = error
            request.done.set()
        if request in self._queue:
            self._queue.remove(request)
