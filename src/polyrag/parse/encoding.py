"""Bytes → str for text formats: byte-order marks, BOM-less UTF-16/32, UTF-8, then a best guess."""

from __future__ import annotations

import codecs
import re

from polyrag.errors import UnsupportedFormatError

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SAMPLE = 4096
# C0 controls other than tab, newline, vertical tab, form feed, carriage return and escape.
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]")
# UTF-8 read as Latin-1 leaves a lead byte followed by C1 controls, e.g. "â\x80\x93" for "–".
_MOJIBAKE = re.compile(r"[\xc2-\xf4][\x80-\xbf]{1,3}")
_C1 = re.compile(r"[\x80-\x9f]")


def decode_text(data: bytes, *, hint: str | None = None) -> str:
    """Decode text of unknown encoding; `hint` is a declared charset (e.g. from an HTML meta tag).

    Raises UnsupportedFormatError when the bytes are not text at all.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return _checked(data[len(bom) :].decode(encoding, errors="replace"))
    wide = _wide_encoding(data[:_SAMPLE])
    if wide is not None:
        try:
            return _checked(data.decode(wide))
        except UnicodeDecodeError:
            pass
    if b"\x00" in data[:_SAMPLE]:
        raise UnsupportedFormatError("binary content")
    try:
        return _checked(_repair_mojibake(data.decode("utf-8")))
    except UnicodeDecodeError:
        pass
    declared = _known_codec(hint)
    if declared is not None and declared != "utf-8":
        try:
            return _checked(data.decode(declared))
        except UnicodeDecodeError:
            pass
    return _checked(_guess(data))


def _wide_encoding(sample: bytes) -> str | None:
    """Recognise BOM-less UTF-32 and UTF-16 from where the zero bytes of ASCII characters sit."""
    size = len(sample)
    if size < 4 or sample.count(0) < size // 4:
        return None
    if size % 4 == 0 or size >= 64:
        quads = [sample[i : i + 4] for i in range(0, size - size % 4, 4)]
        if sum(q[1:] == b"\x00\x00\x00" for q in quads) >= 0.7 * len(quads):
            return "utf-32-le"
        if sum(q[:3] == b"\x00\x00\x00" for q in quads) >= 0.7 * len(quads):
            return "utf-32-be"
    pairs = size // 2
    even_zero = sum(sample[i] == 0 for i in range(0, pairs * 2, 2))
    odd_zero = sum(sample[i] == 0 for i in range(1, pairs * 2, 2))
    if odd_zero >= 0.4 * pairs and even_zero <= 0.05 * pairs:
        return "utf-16-le"
    if even_zero >= 0.4 * pairs and odd_zero <= 0.05 * pairs:
        return "utf-16-be"
    return None


def _known_codec(name: str | None) -> str | None:
    if not name:
        return None
    try:
        return codecs.lookup(name.strip().strip("\"'")).name
    except LookupError:
        return None


def _guess(data: bytes) -> str:
    """Neither UTF-8 nor declared: ask charset-normalizer, leaning to Windows-1252 on near ties."""
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data[:200_000]))
    best = matches[0] if matches else None
    western = next((m for m in matches if "cp1252" in m.could_be_from_charset), None)
    # Short or mixed Western text often ties with cp1250 and friends; cp1252 is the likelier truth.
    if western is not None and (best is None or western.percent_chaos <= best.percent_chaos + 1):
        best = western
    if best is not None and best.encoding != "cp1252":
        try:
            return data.decode(best.encoding)
        except (UnicodeDecodeError, LookupError):
            pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _repair_mojibake(text: str) -> str:
    """Undo UTF-8 that was once decoded as Latin-1 and saved again ("â\x80\x93" → "–")."""
    if not _C1.search(text):
        return text

    def fix(match: re.Match[str]) -> str:
        try:
            return match.group().encode("latin-1").decode("utf-8")
        except UnicodeError:
            return match.group()

    return _MOJIBAKE.sub(fix, text)


def _checked(text: str) -> str:
    """Refuse decoded 'text' that is mostly control characters (binary data)."""
    sample = text[:_SAMPLE]
    if sample and len(_CONTROL.findall(sample)) > 0.02 * len(sample) + 1:
        raise UnsupportedFormatError("binary content")
    return text
