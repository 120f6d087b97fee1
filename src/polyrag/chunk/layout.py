"""Which way a document is chunked: as running text (a report) or one chunk per page (slides).

Metadata decides first: a presentation format is always a deck. Otherwise the parser's own
reading of the layout counts (the PDF parser calls a landscape, slide-sized file "slides").
"""

from __future__ import annotations

from typing import Literal

Layout = Literal["report", "slides"]

SLIDE_FORMATS = frozenset({"pptx", "ppt", "odp", "key"})


def classify(media_type: str, layout: str | None = None) -> Layout:
    """`slides` for presentation formats and parser-detected decks, `report` for the rest."""
    if media_type.lower() in SLIDE_FORMATS:
        return "slides"
    return "slides" if layout == "slides" else "report"
