"""The pages a question points at: "on page 14", "pages 15 and 16", "the second page".

Nothing in a page's text says which page it is (its running page number is furniture, kept out
of the chunks and kept in the locator), so "What is the fax number on page fourteen?" cannot
find page 14 by meaning or by words. The retriever searches the named pages as well and raises
their chunks. A document's printed page numbers may differ from its physical pages (a cover and
a table of contents before page 1): these numbers are looked for both ways, as physical pages
(as every citation counts them) and as the numbers printed on them (`Locator.printed_page`).
"""

from __future__ import annotations

import re

from polyrag.answer.numbers import NUMBER_WORDS

_ORDINALS = [
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
    "thirteenth",
    "fourteenth",
    "fifteenth",
    "sixteenth",
    "seventeenth",
    "eighteenth",
    "nineteenth",
    "twentieth",
]
_WORDS = {word: n for n, word in enumerate(NUMBER_WORDS, start=1)}
_NTH = {word: n for n, word in enumerate(_ORDINALS, start=1)}

_NUMBER = r"(\d{1,4}|" + "|".join(NUMBER_WORDS) + r")\b"
# "page 14", "pages 15 and 16", "page(1)", "p. 3", "pp. 4-5", "page fourteen"
_PAGE_N = re.compile(
    r"\b(?:pages?|pp?\.)\s*\(?\s*"
    + _NUMBER
    + r"(?:\s*\)?\s*(?:-|–|to|and|&|,)\s*(?:pages?\s*)?"
    + _NUMBER
    + r")?",
    re.IGNORECASE,
)
# "the second page", "first page" (in "the second last page" no ordinal comes before "page")
_NTH_PAGE = re.compile(r"\b(" + "|".join(_ORDINALS) + r")\s+(?:cover\s+)?page\b", re.IGNORECASE)
_COVER = re.compile(r"\b(?:cover|front|title)\s+page\b", re.IGNORECASE)
_MOST = 50  # "pages 1-400" names no page in particular


# "the last page", "the final page", "the second-to-last page", "the page at the second last"
_FROM_END = re.compile(
    r"\b(?:(?:(second|third)[\s-]+(?:to[\s-]+)?)?(?:last|final)\s+page"
    r"|(penultimate)\s+page"
    r"|page\s+at\s+the\s+(?:(second|third)[\s-]+(?:to[\s-]+)?)?last)\b",
    re.IGNORECASE,
)
_FROM_END_COUNT = {None: 1, "second": 2, "penultimate": 2, "third": 3}


def pages_from_end(question: str) -> tuple[int, ...]:
    """The pages a question names counting from a document's end: 1 for "the last page", 2
    for "the second last page"; each once, in order."""
    found = []
    for match in _FROM_END.finditer(question):
        word = next((group.lower() for group in match.groups() if group), None)
        found.append(_FROM_END_COUNT[word])
    return tuple(dict.fromkeys(found))


def named_pages(question: str) -> tuple[int, ...]:
    """The page numbers a question names, in order, each once."""
    pages: list[int] = []
    for match in _PAGE_N.finditer(question):
        first = _number(match.group(1))
        if match.group(2) is None:
            pages.append(first)
            continue
        last = _number(match.group(2))
        if re.search(r"-|–|\bto\b", match.group(0)):
            if 0 <= last - first < _MOST:
                pages.extend(range(first, last + 1))
        else:
            pages += [first, last]
    ordinals = [_NTH[match.group(1).lower()] for match in _NTH_PAGE.finditer(question)]
    pages += ordinals
    if not ordinals and _COVER.search(question):  # "the second cover page" is page 2
        pages.append(1)
    return tuple(dict.fromkeys(page for page in pages if page >= 1))


def _number(text: str) -> int:
    return int(text) if text.isdigit() else _WORDS[text.lower()]
