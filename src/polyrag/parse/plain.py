"""Markdown and plain text → Blocks. Character spans index the decoded text with "\\n" line ends."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import PurePath

from polyrag.parse.base import Document
from polyrag.parse.encoding import decode_text
from polyrag.parse.sniff import sniff_text
from polyrag.parse.tables import markdown_table
from polyrag.types import Block, BlockKind, Locator

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_THEMATIC = re.compile(r"^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_TAG = re.compile(r"<[^>\n]+>")
_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")
PARAGRAPH_CHARS = 2000  # plain text without blank lines is cut near this length


class PlainTextParser:
    """Markdown (.md) and plain text (.txt and anything else that decodes as text)."""

    media_types = frozenset({"markdown", "text"})
    version = "1"

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        text = normalize_newlines(decode_text(data))
        if sniff_text(text, name) == "markdown" or PurePath(name).suffix.lower() == ".md":
            blocks = list(markdown_blocks(text))
            title = next((b.text for b in blocks if b.kind == BlockKind.HEADING), None)
            return Document(media_type="markdown", blocks=tuple(blocks), title=title)
        return Document(media_type="text", blocks=tuple(text_blocks(text)))


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def text_blocks(text: str) -> Iterator[Block]:
    """One TEXT block per run of lines between blank lines; very long runs are cut at line ends."""
    start = 0
    for gap in [*_BLANK_LINES.finditer(text), None]:
        end = gap.start() if gap else len(text)
        for piece_start, piece_end in _pieces(text, start, end):
            block = _span_block(BlockKind.TEXT, text, piece_start, piece_end)
            if block is not None:
                yield block
        if gap:
            start = gap.end()


def _pieces(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Split text[start:end] at newlines into spans of about PARAGRAPH_CHARS at most."""
    while end - start > PARAGRAPH_CHARS:
        cut = text.rfind("\n", start, start + PARAGRAPH_CHARS)
        if cut <= start:
            break  # one very long line: leave it whole
        yield start, cut
        start = cut + 1
    yield start, end


def markdown_blocks(text: str) -> Iterator[Block]:
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    paragraph: list[int] = []  # indexes of the lines of the paragraph being read

    def flush() -> Iterator[Block]:
        if paragraph:
            block = _paragraph_block(text, offsets[paragraph[0]], offsets[paragraph[-1] + 1] - 1)
            paragraph.clear()
            if block is not None:
                yield block

    i = 0
    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            yield from flush()
            end = _fence_end(lines, i, fence.group(1))
            block = _span_block(BlockKind.TEXT, text, offsets[i], offsets[end + 1] - 1)
            if block is not None:
                yield block
            i = end + 1
            continue
        if line.lstrip().startswith("<!--") and not paragraph:
            yield from flush()
            while i < len(lines) and "-->" not in lines[i]:
                i += 1  # an HTML comment: not shown to readers, so not indexed
            i += 1
            continue
        heading = _ATX.match(line)
        if heading and heading.group(2):
            yield from flush()
            yield _heading(heading.group(2), len(heading.group(1)), offsets[i], offsets[i + 1] - 1)
        elif (
            paragraph and _SETEXT.match(line) and not _TABLE_RULE.match(lines[paragraph[0]] or "x")
        ):
            level = 1 if line.strip().startswith("=") else 2
            title = " ".join(lines[n].strip() for n in paragraph)
            yield _heading(title, level, offsets[paragraph[0]], offsets[i + 1] - 1)
            paragraph.clear()
        elif (
            "|" in line
            and i + 1 < len(lines)
            and _TABLE_RULE.match(lines[i + 1])
            and "-" in lines[i + 1]
        ):
            yield from flush()
            end = i + 2
            while end < len(lines) and "|" in lines[end] and lines[end].strip():
                end += 1
            yield _table(lines[i:end], offsets[i], offsets[end] - 1)
            i = end
            continue
        elif not line.strip() or (not paragraph and _THEMATIC.match(line)):
            yield from flush()
        else:
            paragraph.append(i)
        i += 1
    yield from flush()


def _fence_end(lines: list[str], start: int, marker: str) -> int:
    for end in range(start + 1, len(lines)):
        if lines[end].strip().startswith(marker[0] * len(marker)):
            return end
    return len(lines) - 1


def _heading(title: str, level: int, start: int, end: int) -> Block:
    text = title.strip().strip("#").strip()
    return Block(BlockKind.HEADING, text, Locator(char_span=(start, end)), level=level)


def _table(lines: list[str], start: int, end: int) -> Block:
    rows = [_cells(line) for index, line in enumerate(lines) if index != 1]
    return Block(BlockKind.TABLE, markdown_table(rows), Locator(char_span=(start, end)))


def _cells(line: str) -> list[str]:
    stripped = line.strip()
    stripped = stripped[1:] if stripped.startswith("|") else stripped
    stripped = (
        stripped[:-1] if stripped.endswith("|") and not stripped.endswith("\\|") else stripped
    )
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(stripped)]


def _paragraph_block(text: str, start: int, end: int) -> Block | None:
    """A paragraph; inline HTML blocks lose their tags and comments."""
    block = _span_block(BlockKind.TEXT, text, start, end)
    if block is None or not block.text.lstrip().startswith("<"):
        return block
    cleaned = re.sub(r"<!--.*?(-->|$)", "", block.text, flags=re.DOTALL)
    lines = (line.strip() for line in _TAG.sub(" ", cleaned).split("\n"))
    cleaned = "\n".join(" ".join(line.split()) for line in lines if line.strip())
    return Block(BlockKind.TEXT, cleaned, block.locator) if cleaned else None


def _span_block(kind: BlockKind, text: str, start: int, end: int) -> Block | None:
    """The stripped text[start:end] with its exact span, or None if it is blank."""
    piece = text[start:end]
    stripped = piece.strip()
    if not stripped:
        return None
    first = start + len(piece) - len(piece.lstrip())
    return Block(kind, stripped, Locator(char_span=(first, first + len(stripped))))
