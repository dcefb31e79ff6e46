"""Test clips derived from the test audio (test/fixtures/audio), for pytest and for the end-to-end tests over the API.

`python clips.py DIR` writes german.wav, two-speakers.wav and long.wav into DIR and prints a JSON line with
what the tests need to know about them (the boundary between the two speakers).
"""

from __future__ import annotations

import json
import sys
import wave
from pathlib import Path

import av
import numpy as np
from faster_whisper import decode_audio

AUDIO = Path(__file__).resolve().parents[3] / "test" / "fixtures" / "audio"
RATE = 16000


def write_wav(path: Path, audio: np.ndarray) -> None:
    pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2")
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(pcm.tobytes())


def encoded(folder: Path, source: str, container: str, codec: str, extension: str) -> Path:
    """The shared clip re-encoded with PyAV (FFmpeg), to check that common formats decode."""
    audio = decode_audio(str(AUDIO / source))
    path = folder / f"{Path(source).stem}.{extension}"
    rate = 48000 if codec == "libopus" else RATE
    if rate != RATE:
        audio = np.interp(np.arange(int(len(audio) * rate / RATE)) * RATE / rate, np.arange(len(audio)), audio).astype(
            np.float32
        )
    with av.open(str(path), "w", format=container) as out:
        stream = out.add_stream(codec, rate=rate)
        stream.layout = "mono"
        frame = av.AudioFrame.from_ndarray(audio[None, :], format="flt", layout="mono")
        frame.sample_rate = rate
        for packet in stream.encode(frame):
            out.mux(packet)
        for packet in stream.encode(None):
            out.mux(packet)
    return path


def german_reading() -> np.ndarray:
    """multilingual.mp3 from the longest pause near its middle, between the two readings: the German."""
    audio = decode_audio(str(AUDIO / "multilingual.mp3"))
    energy = np.sqrt(np.convolve(audio**2, np.ones(400) / 400, mode="same"))[::160]  # 10 ms steps
    middle = slice(len(energy) // 3, 2 * len(energy) // 3)
    quiet = energy[middle] < 0.1 * np.median(energy[energy > 0])
    best, start = (0, 0), None
    for i, q in enumerate(quiet):
        start = (i if start is None else start) if q else None
        if start is not None and i - start + 1 > best[0]:
            best = (i - start + 1, start)
    if best[0] < 50:
        raise RuntimeError("no pause of half a second between the readings")
    return audio[(middle.start + best[1] + best[0] // 2) * 160 :]


def german_half(folder: Path) -> Path:
    path = folder / "german.wav"
    write_wav(path, german_reading())
    return path


def two_speakers(folder: Path, pause_seconds: float = 0.5) -> tuple[Path, float]:
    """stereo_diarization.wav mixed to mono one channel after the other, `pause_seconds` apart, and
    where the second starts.

    The two channels speak at the same time; summed, the quieter voice is lost to any transcriber,
    so the channels are mixed to mono in sequence: a two-speaker clip.
    """
    left, right = decode_audio(str(AUDIO / "stereo_diarization.wav"), split_stereo=True)

    def voiced(channel: np.ndarray) -> np.ndarray:
        loud = np.flatnonzero(np.abs(channel) > 0.02)
        return channel[: loud[-1] + 1600] if loud.size else channel

    left, right = voiced(left), voiced(right)
    gap = np.zeros(int(RATE * pause_seconds), dtype=np.float32)
    path = folder / "two-speakers.wav"
    write_wav(path, np.concatenate([left, gap, right]))
    return path, (len(left) + len(gap) / 2) / RATE


def non_speech(seconds: float = 20.0) -> dict[str, np.ndarray]:
    """Audio with nothing said in it: silence, white noise, a 440 Hz tone, and music (four notes of
    a C major chord, each swelling at its own rate)."""
    t = np.arange(int(seconds * RATE)) / RATE
    noise = np.random.default_rng(7).standard_normal(t.size) * 0.1
    music = 0.2 * sum(
        np.sin(2 * np.pi * f * t) * (0.5 + 0.5 * np.sin(2 * np.pi * t * k))
        for f, k in [(261.6, 0.5), (329.6, 0.75), (392.0, 1.0), (523.2, 2.0)]
    )
    return {
        "silence": np.zeros(t.size, dtype=np.float32),
        "noise": noise.astype(np.float32),
        "tone": (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32),
        "music": np.asarray(music, dtype=np.float32),
    }


def language_switches(folder: Path) -> tuple[Path, list[tuple[str, float, float]]]:
    """English, German, English (jfk.flac, the German reading, jfk.flac) a second apart, and
    where each part is: [(language, start, end)]."""
    jfk, german, gap = decode_audio(str(AUDIO / "jfk.flac")), german_reading(), np.zeros(RATE, dtype=np.float32)
    parts, placed, at = [], [], 0
    for language, audio in (("en", jfk), ("de", german), ("en", jfk)):
        placed.append((language, at / RATE, (at + audio.size) / RATE))
        parts += [audio, gap]
        at += audio.size + gap.size
    path = folder / "en-de-en.wav"
    write_wav(path, np.concatenate(parts))
    return path, placed


def speech_amid_noise(folder: Path) -> tuple[Path, list[tuple[float, float]]]:
    """jfk.flac, then 10 s each of noise, music, silence and a tone, then jfk.flac again; and
    where the speech is."""
    jfk = decode_audio(str(AUDIO / "jfk.flac"))
    filler = non_speech(10.0)
    middle = np.concatenate([filler[name] for name in ("noise", "music", "silence", "tone")])
    path = folder / "speech-amid-noise.wav"
    write_wav(path, np.concatenate([jfk, middle, jfk]))
    second = (jfk.size + middle.size) / RATE
    return path, [(0.0, jfk.size / RATE), (second, second + jfk.size / RATE)]


#: Where multilingual.mp3's English reading ends and the German begins (a 1.6 s pause from 29.3 s).
MULTILINGUAL_SWITCH = 30.0


def readings(english: bool = False) -> np.ndarray:
    """multilingual.mp3 (or its English half) and jfk.flac read one after another, a second apart."""
    gap = np.zeros(RATE, dtype=np.float32)
    multilingual = decode_audio(str(AUDIO / "multilingual.mp3"))
    if english:
        multilingual = multilingual[: int(MULTILINGUAL_SWITCH * RATE)]
    return np.concatenate([multilingual, gap, decode_audio(str(AUDIO / "jfk.flac")), gap])


def cut(reading: np.ndarray, start_seconds: float, seconds: float) -> np.ndarray:
    """`seconds` of the reading read over and over, from `start_seconds`."""
    start, length = int(start_seconds * RATE), int(seconds * RATE)
    return np.tile(reading, (start + length) // reading.size + 1)[start : start + length]


def long_clip(folder: Path, times: int = 4) -> Path:
    """multilingual.mp3 read `times` over: a run long enough that a cancel always lands mid-run."""
    audio = decode_audio(str(AUDIO / "multilingual.mp3"))
    path = folder / "long.wav"
    write_wav(path, np.concatenate([audio] * times))
    return path


if __name__ == "__main__":
    target = Path(sys.argv[1])
    target.mkdir(parents=True, exist_ok=True)
    german_half(target)
    long_clip(target)
    _, boundary = two_speakers(target)
    print(json.dumps({"boundary": boundary}))
