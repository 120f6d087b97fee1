"""Split running text into sentences (and over-long sentences into word runs)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

# A sentence ends at . ! ? (optionally followed by a closing quote or bracket) before
# whitespace and an upper-case letter, digit or opening quote; line breaks always end one.
_BOUNDARY = re.compile(r"(?<=[.!?。！？])[\"'”’)\]]*\s+(?=[\"'“‘(\[]?[A-Z0-9À-Ý])|\n+")
_ABBREVIATIONS = ("e.g.", "i.e.", "Mr.", "Mrs.", "Ms.", "Dr.", "St.", "vs.", "No.", "Fig.", "U.S.")
# Abbreviations that are words of their own ("Knowles v. Mirzayance", "Jan. 13"): compared with
# the last word, not the end ("Kyiv." ends a sentence).
_ABBREVIATION_WORDS = frozenset({
    "v.", "Jr.", "Sr.", "Prof.", "Gen.", "Gov.", "Sen.", "Rep.", "Corp.", "Ltd.", "Nos.", "pp.",
    "cf.", "approx.", "Jan.", "Feb.", "Mar.", "Apr.", "Jun.", "Jul.", "Aug.", "Sep.", "Sept.",
    "Oct.", "Nov.", "Dec.",
})  # fmt: skip
_INITIAL = re.compile(r"(?:^|[\s(])[A-Z]\.$")  # "Roger O. Egeberg", "J. R. R. Tolkien"


# A line that stops mid-sentence (a word or a comma) before a line starting in lower case: the
# text was wrapped to the page's width there, as PDF text is.
_WRAPPED = re.compile(r"[\w,-]$")


def sentence_spans(text: str, *, wrapped: bool = False) -> Iterator[tuple[int, int]]:
    """Character spans of the sentences in `text`, without surrounding whitespace.

    `wrapped`: a single line break inside a sentence (the line stops on a word or a comma and
    the next starts in lower case) does not end it, as in text wrapped to a page's width.
    """
    start = 0
    for match in _BOUNDARY.finditer(text):
        piece = text[start : match.start()]
        ends = piece.rstrip()
        last = ends.rsplit(None, 1)[-1].lstrip("([") if ends else ""
        if "\n" not in match.group(0) and (
            ends.endswith(_ABBREVIATIONS) or last in _ABBREVIATION_WORDS or _INITIAL.search(ends)
        ):
            continue
        if (
            wrapped
            and match.group(0) == "\n"
            and _WRAPPED.search(ends)
            and text[match.end() : match.end() + 1].islower()
        ):
            continue
        yield from _trimmed(text, start, match.start())
        start = match.end()
    yield from _trimmed(text, start, len(text))


def _trimmed(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    piece = text[start:end]
    stripped = piece.strip()
    if stripped:
        offset = start + (len(piece) - len(piece.lstrip()))
        yield offset, offset + len(stripped)


def split_long(
    text: str, limit: int, count_tokens: Callable[[str], int]
) -> Iterator[tuple[int, int]]:
    """Relative spans of word runs of at most `limit` tokens covering `text`."""
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    if not words:
        return
    run_start = 0
    tokens = 0
    for index, (begin, end) in enumerate(words):
        cost = count_tokens(text[begin:end])
        if tokens and tokens + cost > limit:
            yield words[run_start][0], words[index - 1][1]
            run_start, tokens = index, 0
        tokens += cost
    yield words[run_start][0], words[-1][1]
