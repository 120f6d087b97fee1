"""RTF: paragraphs, code-page escapes and Unicode escapes, via striprtf."""

from __future__ import annotations

from polyrag.parse.router import ParserRouter
from polyrag.parse.sniff import sniff
from polyrag.types import BlockKind

RTF = (
    rb"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Arial;}}{\colortbl;\red255\green0\blue0;}"
    rb"{\pard\b Caf\'e9 prices\b0\par}"
    rb"{\pard The espresso costs 2.50 EUR.\par}"
    rb"{\pard\cf1 \u8364? sign\par}}"
)


def test_rtf_paragraphs_with_escapes() -> None:
    assert sniff(RTF, "prices.rtf") == "rtf"
    document = ParserRouter().parse(RTF, "prices.rtf")
    assert document.media_type == "rtf"
    assert [(b.kind, b.text) for b in document.blocks] == [
        (BlockKind.TEXT, "Café prices"),
        (BlockKind.TEXT, "The espresso costs 2.50 EUR."),
        (BlockKind.TEXT, "€ sign"),
    ]
    assert "Arial" not in " ".join(b.text for b in document.blocks)  # the font table is not text
