"""JSON and XML → Blocks of `path: value` lines, so each value keeps the name of what it is.

JSON: a heading per top-level key, then lines such as `items[2].price: 4.5`. JSON Lines (one
document per line) reads as a list. XML: one line per element with text or attributes, e.g.
`catalog/book[2]/title: XML Developer's Guide` and `catalog/book[2]@id: bk102`. XML is read
with defusedxml: entity declarations (billion laughs) and external entities are refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from polyrag.errors import CorruptFileError, MissingDependencyError, UnsupportedFormatError
from polyrag.parse.base import Document
from polyrag.parse.encoding import decode_text
from polyrag.types import Block, BlockKind

LINES_PER_BLOCK = 40
MAX_DEPTH = 64  # deeper values are written as compact JSON on one line
_PLAIN_KEY = re.compile(r"^[A-Za-z_][\w-]*$")
_SPACE = re.compile(r"\s+")
_MAX_VALUE_CHARS = 2000
_DECLARATION = re.compile(r"^\ufeff?\s*<\?xml[^>]*\?>")


class StructuredParser:
    """JSON (.json, JSON Lines) and XML documents."""

    media_types = frozenset({"json", "xml"})
    version = "1"

    def parse(self, data: bytes, *, name: str, password: str | None = None) -> Document:
        text = decode_text(data)
        stripped = text.lstrip("\ufeff \t\r\n")
        if stripped.startswith(("{", "[")):
            return Document(media_type="json", blocks=tuple(json_blocks(_load_json(text))))
        return Document(media_type="xml", blocks=tuple(xml_blocks(data)))


def _load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as first:
        lines = [line for line in text.splitlines() if line.strip()]
        try:
            return [json.loads(line) for line in lines]  # JSON Lines
        except json.JSONDecodeError:
            raise CorruptFileError(
                f"invalid JSON ({first.msg} at line {first.lineno}, column {first.colno})"
            ) from None


def json_blocks(value: Any) -> Iterator[Block]:
    """A heading per top-level key (or list item), then its `path: value` lines."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield Block(BlockKind.HEADING, str(key), level=1)
            yield from _grouped(json_lines(item, _key_path("", str(key)), 1))
    elif isinstance(value, list):
        yield from _grouped(json_lines(value, "", 0))
    else:
        yield from _grouped(json_lines(value, "value", 0))


def json_lines(value: Any, path: str, depth: int) -> Iterator[str]:
    if depth > MAX_DEPTH:
        yield f"{path}: {_clip(json.dumps(value, ensure_ascii=False))}"
    elif isinstance(value, dict):
        if not value:
            yield f"{path}: {{}}"
        for key, item in value.items():
            yield from json_lines(item, _key_path(path, str(key)), depth + 1)
    elif isinstance(value, list):
        if not value:
            yield f"{path}: []"
        for index, item in enumerate(value):
            yield from json_lines(item, f"{path}[{index}]", depth + 1)
    elif value is None:
        yield f"{path}: null"
    elif isinstance(value, bool):
        yield f"{path}: {'true' if value else 'false'}"
    else:
        yield f"{path}: {_clip(_SPACE.sub(' ', str(value)).strip())}"


def _key_path(path: str, key: str) -> str:
    if _PLAIN_KEY.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _grouped(lines: Iterator[str]) -> Iterator[Block]:
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= LINES_PER_BLOCK:
            yield Block(BlockKind.TEXT, "\n".join(batch))
            batch = []
    if batch:
        yield Block(BlockKind.TEXT, "\n".join(batch))


def _clip(text: str) -> str:
    return text if len(text) <= _MAX_VALUE_CHARS else text[: _MAX_VALUE_CHARS - 3] + "..."


def xml_blocks(data: bytes) -> Iterator[Block]:
    """Lines of `path: text` and `path@attribute: value`, grouped by the root's children."""
    try:
        root = parse_xml(data)
    except CorruptFileError:
        # Bytes in another encoding than the declared (or default UTF-8) one: decode them
        # ourselves and parse again; a real syntax error fails the same way the second time.
        text = _DECLARATION.sub("", decode_text(data), count=1)
        root = parse_xml(text.encode("utf-8"))
    root_name = _local(root.tag)
    children = list(root)
    own = [*_attribute_lines(root, root_name), *_text_line(root, root_name)]
    if own:
        yield Block(BlockKind.TEXT, "\n".join(own))
    counts = _tag_counts(children)
    seen: dict[str, int] = {}
    for child in children:
        if not isinstance(child.tag, str):
            continue
        path = _step(root_name, child, counts, seen)
        yield from _grouped(_element_lines(child, path, 1))


def parse_xml(data: bytes) -> Any:
    """The root element, parsed without entity expansion, DTD retrieval or network access."""
    try:
        from defusedxml import DefusedXmlException  # type: ignore[import-untyped]
        from defusedxml.ElementTree import (  # type: ignore[import-untyped]
            ParseError as XmlSyntaxError,
        )
        from defusedxml.ElementTree import fromstring
    except ImportError:
        raise MissingDependencyError("reading XML needs defusedxml") from None
    try:
        return fromstring(data, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise UnsupportedFormatError(
            f"XML with entity declarations or external references is refused for safety ({exc})"
        ) from None
    except (XmlSyntaxError, LookupError) as exc:  # LookupError: an unknown declared encoding
        raise CorruptFileError(f"invalid XML ({exc})") from None


def _element_lines(element: Any, path: str, depth: int) -> Iterator[str]:
    yield from _attribute_lines(element, path)
    yield from _text_line(element, path)
    children = [child for child in element if isinstance(child.tag, str)]
    if depth > MAX_DEPTH:
        return
    counts = _tag_counts(children)
    seen: dict[str, int] = {}
    for child in children:
        yield from _element_lines(child, _step(path, child, counts, seen), depth + 1)


def _attribute_lines(element: Any, path: str) -> Iterator[str]:
    for key, value in element.attrib.items():
        name = _local(key)
        if value.strip() and not key.startswith("{http://www.w3.org/2000/xmlns/"):
            yield f"{path}@{name}: {_clip(_SPACE.sub(' ', value).strip())}"


def _text_line(element: Any, path: str) -> Iterator[str]:
    """The element's own text (and the text after its children), without its children's."""
    parts = [element.text or ""]
    parts.extend(child.tail or "" for child in element)
    text = _SPACE.sub(" ", " ".join(parts)).strip()
    if text:
        yield f"{path}: {_clip(text)}"


def _tag_counts(children: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for child in children:
        if isinstance(child.tag, str):
            counts[_local(child.tag)] = counts.get(_local(child.tag), 0) + 1
    return counts


def _step(path: str, child: Any, counts: dict[str, int], seen: dict[str, int]) -> str:
    name = _local(child.tag)
    if counts.get(name, 0) <= 1:
        return f"{path}/{name}"
    seen[name] = seen.get(name, 0) + 1
    return f"{path}/{name}[{seen[name]}]"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]
