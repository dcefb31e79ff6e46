"""What is said in the shared test audio, and the measures the tests and the benchmark compare
transcripts with (a word error rate, a shared vocabulary): never exact words."""

from __future__ import annotations

import re

JFK = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country."
# multilingual.mp3: the MIT licence's grant read in English (without its "(the Software)"), then a
# German translation of it: its opening as test/fixtures/audio/README.md gives it, then the rest of it.
ENGLISH_HALF = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated "
    "documentation files, to deal in the software without restriction, including without limitation the rights to "
    "use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the software, and to permit "
    "persons to whom the software is furnished to do so, subject to the following conditions: The above copyright "
    "notice and this permission notice shall be included in all copies or substantial portions of the software."
)
GERMAN = (
    "Jedem, der dieses Software und die dazu gehörigen Dokumentationsdateien erhält, wird hiermit unentgeltlich "
    "die Genehmigung erteilt, mit der Software uneingeschränkt zu verfahren. Dies umfasst insbesondere das Recht, "
    "die Software zu verwenden, zu vervielfältigen, zu modifizieren, zusammenzufügen, zu veröffentlichen, zu verteilen, "
    "unterzulizenzieren und/oder Kopien der Software zu verkaufen und diese Rechte unter folgenden Bedingungen "
    "anderen zu übertragen."
)
# The licence's own English wording of that passage: what a translation of the German renders.
ENGLISH = (
    "Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated "
    "documentation files (the Software), to deal in the Software without restriction, including without limitation "
    "the rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and "
    "to permit persons to whom the Software is furnished to do so, subject to the following conditions:"
)
LEFT = "He began a confused complaint against the wizard, who had vanished behind the curtain on the left."
RIGHT = "The horizon seems extremely distant."


def words(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower().replace("/", " "))


def shared_vocabulary(reference: str, hypothesis: str) -> float:
    """The share of the reference's distinct words that the hypothesis uses."""
    ref = set(words(reference))
    return len(ref & set(words(hypothesis))) / len(ref)


def wer(reference: str, hypothesis: str) -> float:
    """Word error rate: word-level edit distance over the reference's length (case and punctuation ignored)."""
    ref, hyp = words(reference), words(hypothesis)
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        previous, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (r != h))
    return row[-1] / len(ref)
