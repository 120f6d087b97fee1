"""JSON and XML: value paths, sniffing, and XML that tries entity bombs or external entities."""

from __future__ import annotations

import json

import pytest

from polyrag.errors import CorruptFileError, UnsupportedFormatError
from polyrag.parse.router import ParserRouter
from polyrag.parse.sniff import sniff
from polyrag.parse.structured import StructuredParser
from polyrag.types import BlockKind

ORDER = {
    "customer": {"name": "Ada", "vip": True, "tags": []},
    "items": [
        {"sku": "A1", "price": 2},
        {"sku": "B2", "price": 3.25},
        {"sku": "C3", "price": 4.5, "notes": None},
    ],
    "shipping address": "1 Main St",
}


def test_json_lines_name_each_value_by_its_path() -> None:
    data = json.dumps(ORDER, indent=2).encode()
    assert sniff(data, "order.json") == "json"
    document = ParserRouter().parse(data, "order.json")
    assert document.media_type == "json"
    headings = [b.text for b in document.blocks if b.kind == BlockKind.HEADING]
    assert headings == ["customer", "items", "shipping address"]
    text = "\n".join(b.text for b in document.blocks if b.kind == BlockKind.TEXT)
    lines = text.splitlines()
    assert "items[2].price: 4.5" in lines
    assert "items[2].notes: null" in lines
    assert "customer.vip: true" in lines
    assert "customer.tags: []" in lines
    assert '["shipping address"]: 1 Main St' in lines


def test_json_lines_file_reads_as_a_list() -> None:
    data = b'{"id": 1, "city": "Oslo"}\n{"id": 2, "city": "Lima"}\n'
    assert sniff(data, "rows.jsonl") == "json"
    document = StructuredParser().parse(data, name="rows.jsonl")
    assert "[1].city: Lima" in document.blocks[0].text.splitlines()


def test_long_json_is_split_into_blocks_of_lines() -> None:
    data = json.dumps({"values": list(range(100))}).encode()
    blocks = [b for b in StructuredParser().parse(data, name="v.json").blocks if b.text]
    assert [len(b.text.splitlines()) for b in blocks[1:]] == [40, 40, 20]


@pytest.mark.parametrize(
    "text",
    [
        '{\n  "name": "John Doe",\n  "age": 30,\n',  # cut short: plain text, not JSON
        "[link](http://example.org) is Markdown",
        "{curly} text",
    ],
)
def test_text_that_is_not_json_is_not_sniffed_as_json(text: str) -> None:
    assert sniff(text.encode(), "notes.txt") != "json"


CATALOG = b"""<?xml version="1.0" encoding="ISO-8859-1"?>
<catalog xmlns="urn:books">
  <book id="bk101"><title>XML Developer's Guide</title><price>44.95</price></book>
  <book id="bk102"><title>Midnight Rain</title><price>5.95</price>
    <note>Caf\xe9 edition</note></book>
</catalog>
"""


def test_xml_lines_carry_element_paths_and_attributes() -> None:
    assert sniff(CATALOG, "catalog.xml") == "xml"
    document = ParserRouter().parse(CATALOG, "catalog.xml")
    assert document.media_type == "xml"
    lines = "\n".join(b.text for b in document.blocks).splitlines()
    assert "catalog/book[2]@id: bk102" in lines
    assert "catalog/book[2]/title: Midnight Rain" in lines
    assert "catalog/book[1]/price: 44.95" in lines
    assert "catalog/book[2]/note: Café edition" in lines  # the declared Latin-1


def test_xml_without_declaration_is_sniffed_by_its_closing_root() -> None:
    data = b"<inventory><item sku='1'>Bolt</item></inventory>\n"
    assert sniff(data, "data") == "xml"
    assert sniff(b"<details>open</details> and more text", "a.md") != "xml"


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<lolz>&lol3;</lolz>
"""
EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<foo>&xxe;</foo>
"""


@pytest.mark.parametrize("data", [BILLION_LAUGHS, EXTERNAL])
def test_entity_declarations_are_refused_in_one_line(data: bytes) -> None:
    with pytest.raises(UnsupportedFormatError, match="refused for safety") as caught:
        ParserRouter().parse(data, "evil.xml")
    assert "\n" not in caught.value.one_line()
    assert "root:" not in str(caught.value)


def test_broken_xml_is_corrupt() -> None:
    with pytest.raises(CorruptFileError, match="invalid XML"):
        StructuredParser().parse(b"<?xml version='1.0'?><a><b></a>", name="bad.xml")
