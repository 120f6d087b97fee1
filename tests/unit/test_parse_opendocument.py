"""OpenDocument text, spreadsheets and presentations, built here as real ODF zips."""

from __future__ import annotations

import io
import zipfile

import pytest

from polyrag.errors import EncryptedFileError, ParseError
from polyrag.parse.opendocument import OpenDocumentParser
from polyrag.parse.router import ParserRouter
from polyrag.parse.sniff import sniff
from polyrag.types import BlockKind, Locator

NAMESPACES = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/"'
)
KINDS = {"odt": "text", "ods": "spreadsheet", "odp": "presentation"}


def make_odf(kind: str, body: str, *, title: str = "", encrypted: bool = False) -> bytes:
    mimetype = f"application/vnd.oasis.opendocument.{KINDS[kind]}"
    content = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {NAMESPACES}>'
        f"<office:body><office:{KINDS[kind]}>{body}</office:{KINDS[kind]}></office:body>"
        "</office:document-content>"
    )
    meta = (
        f'<?xml version="1.0" encoding="UTF-8"?><office:document-meta {NAMESPACES}>'
        f"<office:meta><dc:title>{title}</dc:title></office:meta></office:document-meta>"
    )
    entry = "<manifest:encryption-data/>" if encrypted else ""
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        f'<manifest:file-entry manifest:full-path="content.xml">{entry}</manifest:file-entry>'
        "</manifest:manifest>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        archive.writestr("META-INF/manifest.xml", manifest, compress_type=zipfile.ZIP_DEFLATED)
        archive.writestr("content.xml", content, compress_type=zipfile.ZIP_DEFLATED)
        archive.writestr("meta.xml", meta, compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


TEXT_BODY = """
<text:sequence-decls><text:sequence-decl text:name="Table"/></text:sequence-decls>
<text:h text:outline-level="1">Annual report</text:h>
<text:p>Revenue grew<text:s text:c="2"/>by 12%<text:note><text:note-citation>1</text:note-citation>
<text:note-body><text:p>Audited figures.</text:p></text:note-body></text:note> this year.</text:p>
<text:h text:outline-level="2">Highlights</text:h>
<text:list>
  <text:list-item><text:p>New office in <text:span>Lyon</text:span></text:p></text:list-item>
  <text:list-item><text:p>Two products</text:p>
    <text:list><text:list-item><text:p>Widget</text:p></text:list-item></text:list>
  </text:list-item>
</text:list>
<table:table table:name="Sales">
  <table:table-column table:number-columns-repeated="2"/>
  <table:table-header-rows><table:table-row>
    <table:table-cell><text:p>Region</text:p></table:table-cell>
    <table:table-cell><text:p>Sales</text:p></table:table-cell>
  </table:table-row></table:table-header-rows>
  <table:table-row>
    <table:table-cell><text:p>North</text:p></table:table-cell>
    <table:table-cell office:value="10"><text:p>10</text:p></table:table-cell>
  </table:table-row>
</table:table>
"""


def test_text_document_headings_paragraphs_lists_and_tables() -> None:
    data = make_odf("odt", TEXT_BODY, title="Report 2024")
    assert sniff(data, "report.odt") == "odt"
    document = ParserRouter().parse(data, "report.odt")
    assert document.media_type == "odt"
    assert document.title == "Report 2024"
    pairs = [(block.kind, block.text) for block in document.blocks]
    assert pairs[0] == (BlockKind.HEADING, "Annual report")
    assert (BlockKind.TEXT, "Revenue grew  by 12% this year.") in pairs
    assert (BlockKind.TEXT, "Note: Audited figures.") in pairs
    headings = [b for b in document.blocks if b.kind == BlockKind.HEADING]
    assert [(h.text, h.level) for h in headings] == [("Annual report", 1), ("Highlights", 2)]
    assert (BlockKind.TEXT, "- New office in Lyon") in pairs
    assert (BlockKind.TEXT, "  - Widget") in pairs
    table = next(b.text for b in document.blocks if b.kind == BlockKind.TABLE)
    assert table.splitlines() == ["| Region | Sales |", "| --- | --- |", "| North | 10 |"]


SHEET_BODY = """
<table:table table:name="Cups">
  <table:table-row>
    <table:table-cell><text:p>Team</text:p></table:table-cell>
    <table:table-cell><text:p>Cups</text:p></table:table-cell>
    <table:table-cell table:number-columns-repeated="16382"/>
  </table:table-row>
  <table:table-row table:number-rows-repeated="2">
    <table:table-cell table:number-columns-repeated="3"/>
  </table:table-row>
  <table:table-row>
    <table:table-cell><text:p>Maple Leafs</text:p></table:table-cell>
    <table:table-cell office:value-type="float" office:value="13"><text:p>13</text:p>
    </table:table-cell>
  </table:table-row>
  <table:table-row table:number-rows-repeated="1048571"><table:table-cell/></table:table-row>
</table:table>
<table:table table:name="Empty"/>
<table:table table:name="Notes">
  <table:table-row><table:table-cell><text:p>Only a note</text:p></table:table-cell>
  </table:table-row>
</table:table>
"""


def test_spreadsheet_rows_are_sentences_with_sheet_and_row_numbers() -> None:
    data = make_odf("ods", SHEET_BODY)
    assert sniff(data, "cups.ods") == "ods"
    document = ParserRouter().parse(data, "cups.ods")
    assert document.media_type == "ods"
    assert document.pages == 3
    rows = [b for b in document.blocks if b.kind == BlockKind.ROW]
    assert [(r.text, r.locator) for r in rows] == [
        (
            "Row 4: Team is Maple Leafs, Cups is 13",
            Locator(sheet="Cups", rows=(4, 4), columns=("A", "B")),
        )
    ]
    table = next(b for b in document.blocks if b.kind == BlockKind.TABLE)
    assert table.locator == Locator(sheet="Cups", rows=(1, 4), columns=("A", "B"))
    assert any(b.text == "Only a note" and b.locator.sheet == "Notes" for b in document.blocks)


SLIDES_BODY = """
<draw:page draw:name="page1">
  <draw:frame presentation:class="title"><draw:text-box><text:p>Quarterly review</text:p>
  </draw:text-box></draw:frame>
  <draw:frame presentation:class="outline"><draw:text-box>
    <text:list><text:list-item><text:p>Revenue up 12%</text:p></text:list-item></text:list>
  </draw:text-box></draw:frame>
  <presentation:notes><draw:frame><draw:text-box><text:p>Mention Lyon.</text:p></draw:text-box>
  </draw:frame></presentation:notes>
</draw:page>
<draw:page draw:name="page2">
  <draw:custom-shape><text:p>A shape with text</text:p></draw:custom-shape>
  <draw:frame><table:table>
    <table:table-row><table:table-cell><text:p>Q</text:p></table:table-cell>
      <table:table-cell><text:p>Revenue</text:p></table:table-cell></table:table-row>
    <table:table-row><table:table-cell><text:p>Q3</text:p></table:table-cell>
      <table:table-cell><text:p>4.2</text:p></table:table-cell></table:table-row>
  </table:table></draw:frame>
</draw:page>
"""


def test_presentation_has_one_slide_per_page() -> None:
    data = make_odf("odp", SLIDES_BODY)
    assert sniff(data, "deck.odp") == "odp"
    document = ParserRouter().parse(data, "deck.odp")
    assert (document.media_type, document.layout, document.pages) == ("odp", "slides", 2)
    assert document.title == "Quarterly review"
    by_slide: dict[int, list[str]] = {}
    for block in document.blocks:
        assert block.locator.slide in (1, 2)
        by_slide.setdefault(block.locator.slide or 0, []).append(block.text)
    assert by_slide[1] == [
        "",
        "Quarterly review",
        "- Revenue up 12%",
        "Speaker notes: Mention Lyon.",
    ]
    assert by_slide[2][:3] == ["", "Slide 2", "A shape with text"]
    assert "| Q3 | 4.2 |" in by_slide[2][3]


def test_password_protected_document_is_refused_with_a_hint() -> None:
    data = make_odf("odt", "<text:p>secret</text:p>", encrypted=True)
    with pytest.raises(EncryptedFileError, match="password-protected OpenDocument") as caught:
        OpenDocumentParser().parse(data, name="secret.odt")
    assert "without a password" in caught.value.hint


def test_entities_in_content_are_not_expanded() -> None:
    bomb = (
        '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>'
    )
    data = make_odf("odt", "<text:p>&c;</text:p><text:p>visible</text:p>")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        content = archive.read("content.xml").decode()
    content = content.replace("?>", "?>" + bomb, 1)
    rebuilt = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(rebuilt, "w") as target:
        for info in source.infolist():
            payload = content.encode() if info.filename == "content.xml" else source.read(info)
            target.writestr(info, payload)
    try:
        document = OpenDocumentParser().parse(rebuilt.getvalue(), name="bomb.odt")
    except ParseError as exc:  # refusing is as good as not expanding
        assert "\n" not in str(exc)
        return
    assert all("aaaaaaaaaa" not in block.text for block in document.blocks)
