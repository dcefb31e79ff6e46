"""The parts of the transcription that need no Whisper: audio read a block at a time, stretches of
speech (the real Silero VAD), loops and invented text, the encoder memo."""

from __future__ import annotations

import threading
import tracemalloc
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from faster_whisper import decode_audio

from audio_stream import SAMPLE_RATE, UndecodableAudio, audio_blocks, duration_of
from clips import AUDIO, RATE, german_reading, non_speech, write_wav
from encoder_memo import EncoderMemo
from hallucinations import clean, collapse_loops, is_invented
from pack_gate import PACK_CONFIDENCE, PackGate, first_run, keep_whole, needs_pieces, regrouped
from speech import MAX_STRETCH_SECONDS, Stretch, group, packed, speech_stretches


def test_blocks_are_the_whole_audio_as_faster_whisper_decodes_it() -> None:
    for name in ("jfk.flac", "multilingual.mp3", "stereo_diarization.wav"):
        blocks = list(audio_blocks(AUDIO / name, block_seconds=7))
        assert all(block.size == 7 * SAMPLE_RATE for block in blocks[:-1])
        assert np.array_equal(np.concatenate(blocks), decode_audio(str(AUDIO / name)))
    assert duration_of(AUDIO / "jfk.flac") == pytest.approx(11.0, abs=0.01)


def test_what_is_not_audio_is_undecodable(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<html>not audio</html>")
    with pytest.raises(UndecodableAudio):
        list(audio_blocks(page))
    assert duration_of(page) is None


def test_chunks_join_into_stretches_at_short_pauses_within_one_window() -> None:
    second = SAMPLE_RATE
    chunks = [
        (0, 2 * second),
        (2 * second + second // 2, 5 * second),
        (7 * second, 9 * second),
        (9 * second + 100, 40 * second),
    ]
    assert group(chunks, max_span=30 * second, split_pause=second) == [
        (0, 5 * second),
        (7 * second, 9 * second),
        (9 * second + 100, 40 * second),
    ]
    assert group([], max_span=30 * second, split_pause=second) == []


def test_stretches_pack_end_to_end_into_a_window_and_their_times_map_back() -> None:
    second = SAMPLE_RATE

    def stretch(start: float, end: float) -> Stretch:
        samples = np.arange(int(start * second), int(end * second), dtype=np.float32)
        return Stretch(int(start * second), int(end * second), samples)

    stretches = [stretch(0, 10), stretch(12, 20), stretch(25, 36), stretch(40, 70), stretch(71, 72)]
    packs = list(packed(stretches, max_seconds=MAX_STRETCH_SECONDS))
    # 10 + 8 + 11 s fit one window; the 30 s stretch fills one alone; the last is left alone.
    assert [(p.start_seconds, p.end_seconds, p.seconds) for p in packs] == [(0, 36, 29), (40, 70, 30), (71, 72, 1)]
    first = packs[0]
    # The pauses are gone: each piece's samples follow the one before's.
    assert np.array_equal(first.audio, np.concatenate([s.audio for s in stretches[:3]]))
    assert first.joins == [10, 18]
    assert first.whole_span(0, 9.5) == (0, 9.5) and first.whole_span(10, 17.5) == (12, 19.5)
    assert first.whole_span(18, 29) == (25, 36)
    assert first.whole_span(-0.2, 0.5) == (0, 0.5) and first.whole_span(28.5, 31) == (35.5, 36)  # within the audio
    # A span across a join is kept within the stretch its middle falls in.
    assert first.whole_span(9.5, 10.2) == (9.5, 10) and first.whole_span(9.8, 10.6) == (12, 12.6)
    assert packs[1] is stretches[3] and packs[1].whole_span(5, 31) == (45, 70) and packs[1].joins == []
    assert list(packed([])) == []


def test_stretches_are_not_packed_while_the_gate_is_closed() -> None:
    """Twelve stretches of 10 s, two to a window; the third and fourth are German. The pack that
    holds them is not kept whole and closes the gate: the stretches after it come one by one until
    three in a row are surely in one language, then packed again."""
    second = SAMPLE_RATE
    stretches = [Stretch(k * 11 * second, (k * 11 + 10) * second, np.full(10 * second, k)) for k in range(12)]
    gate = PackGate()
    found = []
    for stretch in packed(stretches, packing=gate.packing):
        indexes = [int(piece.audio[0]) for piece in stretch.unpacked()]
        found.append(indexes)
        if stretch.pieces:
            gate.heard_pack(not {2, 3} & set(indexes))
        else:
            gate.heard_stretch(("en", 0.95))
    assert found == [[0, 1], [2, 3], [4], [5], [6], [7, 8], [9, 10], [11]]


def test_a_pack_is_kept_whole_where_its_language_is_sure_and_every_stretch_is_heard_in_it() -> None:
    sure, unsure = PACK_CONFIDENCE, PACK_CONFIDENCE - 0.01
    assert keep_whole(("en", sure)) and not keep_whole(("en", unsure))
    # Another language: only where every stretch's own frames are heard in it too.
    assert keep_whole(("de", sure), [("de", 0.4), ("de", 0.99)])
    assert not keep_whole(("de", sure), [("de", 0.99), ("en", 0.6)])
    assert not keep_whole(("de", sure)) and not keep_whole(("de", unsure), [("de", 0.99)])
    # Every pack but one surely English has its stretches heard in their frames: to be kept whole,
    # or else to decode those heard surely there from them.
    assert needs_pieces(("de", sure)) and needs_pieces(("de", unsure)) and needs_pieces(("en", unsure))
    assert not needs_pieces(("en", sure))


def test_the_first_run_of_a_pack_not_kept_whole_is_decoded_from_its_frames() -> None:
    sure, unsure = PACK_CONFIDENCE, PACK_CONFIDENCE - 0.01
    assert first_run([("en", sure), ("en", 0.99), ("de", 0.99), ("en", 0.99)]) == 2
    assert first_run([("de", 0.99), ("de", unsure), ("de", 0.99)]) == 1
    assert first_run([("en", unsure), ("en", 0.99)]) == 0
    assert first_run([]) == 0


def test_the_stretches_after_the_first_run_are_heard_again_packed_in_one_window() -> None:
    sure, unsure = PACK_CONFIDENCE, PACK_CONFIDENCE - 0.01
    # After a change of language: one window for the rest, whatever languages it holds.
    assert regrouped([("en", sure), ("en", 0.99), ("de", 0.99), ("en", 0.99)]) == (2, [[2, 3]])
    assert regrouped([("de", 0.99), ("en", 0.99)]) == (1, [[1]])
    assert regrouped([("de", 0.99), ("de", unsure), ("de", 0.99)]) == (1, [[1, 2]])
    # Every stretch in the first run: none heard again.
    assert regrouped([("de", 0.99), ("de", sure)]) == (2, [])
    # No first run: the first alone, then the others together; each group smaller than the pack.
    assert regrouped([("en", unsure), ("en", 0.99), ("de", 0.99)]) == (0, [[0], [1, 2]])
    assert regrouped([("en", unsure)]) == (0, [[0]])
    assert regrouped([]) == (0, [])


def test_the_pack_gate_closes_on_a_pack_not_kept_whole_and_opens_after_stretches_sure_of_one_language() -> None:
    gate = PackGate()
    assert gate.packing()
    gate.heard_pack(True)
    assert gate.packing()
    gate.heard_pack(False)
    assert not gate.packing()
    for heard in [("en", 0.99), ("en", 0.99), ("de", 0.99), ("de", 0.99), ("de", 0.5), ("de", 0.99), ("de", 0.99)]:
        gate.heard_stretch(heard)
        assert not gate.packing()
    gate.heard_stretch(("de", 0.99))
    assert gate.packing()
    gate.heard_pack(False)
    assert not gate.packing()


def test_stretches_are_the_same_whatever_the_blocks(tmp_path: Path) -> None:
    path = AUDIO / "multilingual.mp3"
    whole = [(s.start, s.end) for s in speech_stretches(audio_blocks(path, block_seconds=600))]
    assert [(round(start / RATE), round(end / RATE)) for start, end in whole] == [(0, 29), (31, 60)]
    for block_seconds in (7, 13, 29):
        stretches = list(speech_stretches(audio_blocks(path, block_seconds=block_seconds)))
        # Flat: pytest.approx compares no nested structures.
        assert [edge for s in stretches for edge in (s.start, s.end)] == pytest.approx(
            [edge for pair in whole for edge in pair], abs=0.3 * RATE
        )
        for stretch in stretches:
            assert stretch.seconds <= MAX_STRETCH_SECONDS
            assert stretch.audio.size == stretch.end - stretch.start


def test_long_audio_is_held_a_block_at_a_time(tmp_path: Path) -> None:
    """Five and twenty minutes of speech and pauses: the memory held while their stretches are
    found is the same, and a fraction of the twenty minutes' samples (77 MB of float32)."""
    reading = np.concatenate([german_reading(), np.zeros(2 * RATE, dtype=np.float32)])
    peaks = {}
    for minutes in (5, 20):
        path = tmp_path / f"{minutes}-minutes.wav"
        write_wav(path, np.tile(reading, int(minutes * 60 * RATE / reading.size) + 1))
        tracemalloc.start()
        try:
            spoken = sum(stretch.seconds for stretch in speech_stretches(audio_blocks(path)))
            peaks[minutes] = tracemalloc.get_traced_memory()[1] / 1e6
        finally:
            tracemalloc.stop()
        assert spoken > minutes * 60 * 0.75
    assert peaks[20] <= peaks[5] * 1.2 + 2, peaks
    assert peaks[20] < 20 * 60 * RATE * 4 / 1e6 / 2, peaks


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Thank you. Thank you. Thank you. Thank you.", "Thank you."),
        ("and so and so and so on we go", "and so on we go"),
        ("la la la la la la la la", "la"),
        ("I said no, no. That is all.", "I said no, no. That is all."),
        ("It is very, very good.", "It is very, very good."),
        ("", ""),
    ],
)
def test_loops_of_a_phrase_are_said_once(text: str, expected: str) -> None:
    assert collapse_loops(text) == expected


def test_what_is_not_speech_is_invented() -> None:
    assert is_invented("♪ ♪", 0.1, -0.2)
    assert is_invented("...", 0.1, -0.2)
    assert is_invented("Thank you.", 0.9, -1.2)
    assert not is_invented("Thank you.", 0.9, -0.3)  # Whisper is sure of the words
    assert not is_invented("Thank you.", 0.2, -1.2)  # and here, that something was said


def test_clean_drops_invented_and_repeated_segments() -> None:
    def segment(text: str, no_speech: float = 0.1, logprob: float = -0.2) -> SimpleNamespace:
        return SimpleNamespace(text=text, no_speech_prob=no_speech, avg_logprob=logprob)

    segments = [
        segment(" Hello there."),
        segment(" hello, there"),
        segment(" ♪"),
        segment(" Bye bye bye bye."),
        segment(" Thanks.", 0.95, -1.5),
    ]
    assert [text for _, text in clean(segments)] == ["Hello there.", "bye."]


def test_a_stretch_of_a_pack_is_where_it_is_in_the_pack_with_silence_before_it() -> None:
    second = SAMPLE_RATE
    stretches = [
        Stretch(start * second, end * second, np.full((end - start) * second, start + 1, np.float32))
        for start, end in ((0, 10), (12, 20), (25, 36))
    ]
    [pack] = list(packed(stretches))
    first, second_piece, last = (pack.piece(k) for k in range(3))
    # Its window: the pack's up to its end, silent before it; never the pack's own.
    assert np.array_equal(second_piece.audio, np.concatenate([np.zeros(10 * second), np.full(8 * second, 13)]))
    assert np.array_equal(first.audio, stretches[0].audio) and last.audio.size == pack.audio.size
    assert not np.array_equal(last.audio, pack.audio) and last.heard_in is pack
    assert (second_piece.start_seconds, second_piece.end_seconds, second_piece.offsets) == (12, 20, [10])
    [own] = second_piece.unpacked()
    assert (own.start, own.end) == (stretches[1].start, stretches[1].end)
    assert np.array_equal(own.audio, stretches[1].audio)
    # Times within its own part of the window, in the whole audio.
    assert second_piece.whole_span(10.5, 17) == (12.5, 19) and second_piece.whole_span(9.6, 10.4) == (12, 12.4)
    assert last.whole_span(28, 30) == (35, 36) and first.whole_span(1, 2) == (1, 2)


def test_the_encoder_memo_keeps_an_output_made_otherwise() -> None:
    """A stretch of a pack is decoded from its frames of the pack's output laid on silence
    (decoding.py): the memo keeps that as its window's, and the encoder never sees the window."""
    encoded: list[int] = []

    def encode(features: np.ndarray) -> np.ndarray:
        encoded.append(len(features))
        return features[:, :2, :3]

    window = np.full((80, 3000), 7, np.float32)
    laid_out = np.arange(6, dtype=np.float32).reshape(2, 3)
    memo = EncoderMemo(encode, size=4)
    assert not memo.holds(window)
    with memo.serving({"prediction"}):
        memo.keep(window, laid_out)
    assert memo.holds(window)
    assert np.array_equal(np.asarray(memo(window))[0], laid_out)
    other = np.ones((80, 3000), np.float32)
    assert np.array_equal(np.asarray(memo(np.stack([other, window])))[1], laid_out)
    assert encoded == [1]  # `other` alone
    memo.release("prediction")
    assert not memo.holds(window)


def test_the_encoder_memo_encodes_a_window_once() -> None:
    encoded: list[int] = []

    def encode(features: np.ndarray) -> np.ndarray:
        encoded.append(len(features))
        return features.sum(axis=(1, 2), keepdims=True)  # a window's "output": its sum

    def sums(output: Any) -> list[float]:
        return [float(x) for x in np.asarray(output).ravel()]

    memo = EncoderMemo(encode, size=2)
    a, b, c = np.ones((80, 3000), np.float32), np.zeros((80, 3000), np.float32), np.full((80, 3000), 2, np.float32)
    assert sums(memo(a)) == sums(memo(a.copy())) == [240000]
    assert sums(memo(b)) == [0] and sums(memo(c)) == [480000]
    assert sums(memo(a)) == [240000]  # pushed out by b and c
    assert memo.passes == len(encoded) == 4
    memo.clear()
    memo(c)
    assert memo.passes == 5


def test_the_encoder_memo_keeps_each_threads_outputs_for_the_owners_it_serves() -> None:
    # Two lanes encode at once, each for the predictions of its own pass.
    inside, outside = threading.Event(), threading.Event()

    def encode(features: np.ndarray) -> np.ndarray:
        if features[0, 0, 0] == 1:
            inside.set()
            outside.wait(5)
        return features.sum(axis=(1, 2), keepdims=True)

    memo = EncoderMemo(encode, size=8)
    a, b = np.ones((80, 3000), np.float32), np.full((80, 3000), 2, np.float32)

    def lane() -> None:
        with memo.serving({"first"}):
            memo(a)

    thread = threading.Thread(target=lane)
    thread.start()
    inside.wait(5)
    with memo.serving({"second"}):
        memo(b)
    outside.set()
    thread.join(5)
    memo.release("second")
    assert memo.holds(a) and not memo.holds(b)
    memo.release("first")
    assert not memo.holds(a)


def test_the_encoder_memo_keeps_windows_not_passes() -> None:
    """A stack whose languages were heard in one pass is decoded in other groupings (a language a
    pass, other predictions' stretches beside): only the windows never encoded are encoded."""
    encoded: list[int] = []

    def encode(features: np.ndarray) -> np.ndarray:
        encoded.append(len(features))
        return features.sum(axis=(1, 2), keepdims=True)

    a, b, c, d = (np.full((80, 3000), value, np.float32) for value in (1, 2, 3, 4))
    memo = EncoderMemo(encode, size=8)
    heard = memo(np.stack([a, b, c]))
    assert memo(np.stack([a, b, c])) is heard  # asked again as it was made: the encoder's own output
    assert [float(x) for x in np.asarray(memo(np.stack([c, a]))).ravel()] == [720000, 240000]
    assert [float(x) for x in np.asarray(memo(np.stack([d, b, d]))).ravel()] == [960000, 480000, 960000]
    assert encoded == [3, 1]  # d alone, once
    assert (memo.passes, memo.windows) == (2, 4)


def test_non_speech_has_no_stretches() -> None:
    for kind, audio in non_speech().items():
        assert list(speech_stretches([audio])) == [], kind
