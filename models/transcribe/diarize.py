"""Who spoke each word: d-vectors of the voice around each word, clustered into the expected count.

Each word is embedded from the 1.6 s of audio centred on it (SpeakerEncoder), a stretch of speech at
a time as the transcription goes, and the embeddings
are clustered by average-linkage agglomeration on cosine distance into `speakers` groups (for
long recordings, spherical k-means seeded by farthest points keeps it linear). No pause or
turn-taking heuristics are involved: labels come from the voices alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from speaker_encoder import PARTIAL_FRAMES, SpeakerEncoder

AGGLOMERATIVE_LIMIT = 600


def _agglomerate(x: np.ndarray, k: int) -> np.ndarray:
    similarity = x @ x.T
    clusters: list[list[int]] = [[i] for i in range(len(x))]
    sums = similarity.copy()  # sums[a, b] = total similarity between clusters a and b
    sizes = np.ones(len(x))
    active = list(range(len(x)))
    while len(active) > k:
        sub = sums[np.ix_(active, active)] / np.outer(sizes[active], sizes[active])
        np.fill_diagonal(sub, -np.inf)
        i, j = np.unravel_index(int(np.argmax(sub)), sub.shape)
        a, b = active[i], active[j]
        clusters[a].extend(clusters[b])
        sums[a, :] += sums[b, :]
        sums[:, a] += sums[:, b]
        sizes[a] += sizes[b]
        active.remove(b)
    labels = np.zeros(len(x), dtype=int)
    for label, index in enumerate(active):
        labels[clusters[index]] = label
    return labels


def _spherical_kmeans(x: np.ndarray, k: int, iterations: int = 30) -> np.ndarray:
    centres = [x[0]]
    for _ in range(1, k):
        distance = 1 - np.max(np.stack([x @ c for c in centres]), axis=0)
        centres.append(x[int(np.argmax(distance))])
    c = np.stack(centres)
    labels = np.zeros(len(x), dtype=int)
    for _ in range(iterations):
        labels = np.argmax(x @ c.T, axis=1)
        for j in range(k):
            members = x[labels == j]
            if len(members):
                mean = members.mean(axis=0)
                c[j] = mean / (np.linalg.norm(mean) + 1e-9)
    return labels


def embed_words(encoder: SpeakerEncoder, audio: np.ndarray, word_times: Sequence[tuple[float, float]]) -> np.ndarray:
    """A d-vector per word (times in seconds from the start of `audio`): (words, 256)."""
    if not word_times:
        return np.zeros((0, 256), dtype=np.float32)
    mels = encoder.mel_frames(audio)
    if len(mels) < PARTIAL_FRAMES:
        mels = np.pad(mels, ((0, PARTIAL_FRAMES - len(mels)), (0, 0)))
    windows = []
    for start, end in word_times:
        centre = int((start + end) / 2 * 100)
        first = max(0, min(centre - PARTIAL_FRAMES // 2, len(mels) - PARTIAL_FRAMES))
        windows.append(mels[first : first + PARTIAL_FRAMES])
    return np.concatenate([encoder.embed(np.stack(windows[i : i + 64])) for i in range(0, len(windows), 64)])


def cluster(embeddings: np.ndarray, speakers: int) -> list[int]:
    """A speaker index per embedding, numbered in order of first appearance."""
    if len(embeddings) == 0:
        return []
    if speakers <= 1 or len(embeddings) == 1:
        return [0] * len(embeddings)
    k = min(speakers, len(embeddings))
    raw = _agglomerate(embeddings, k) if len(embeddings) <= AGGLOMERATIVE_LIMIT else _spherical_kmeans(embeddings, k)
    order: dict[int, int] = {}
    return [order.setdefault(int(label), len(order)) for label in raw]
