"""Printed page numbers: "page 9" of a report with a cover and a contents before page 1 is a
page whose physical number is not 9. The parser keeps the printed number in the locator."""

from __future__ import annotations

import pytest

from polyrag.parse.pdf import PdfParser, _with_printed_pages
from polyrag.types import Block, BlockKind, Locator


def labelled_pdf(bodies: list[list[str]], labels: str = "") -> bytes:
    """A PDF with one page of text lines per body and, when given, a /PageLabels number tree
    (`labels` is its /Nums array)."""
    count = len(bodies)
    pages = [4 + 2 * i for i in range(count)]
    tree = f" /PageLabels << /Nums [{labels}] >>" if labels else ""
    objects = [
        f"<< /Type /Catalog /Pages 2 0 R{tree} >>",
        f"<< /Type /Pages /Kids [{' '.join(f'{p} 0 R' for p in pages)}] /Count {count} >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for number, lines in zip(pages, bodies, strict=True):
        stream = "\n".join(
            f"BT /F1 11 Tf 72 {720 - 40 * row} Td ({line}) Tj ET" for row, line in enumerate(lines)
        )
        objects.append(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {number + 1} 0 R >>"
        )
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    trailer = f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    out += trailer.encode()
    return bytes(out)


def printed(blocks: tuple[Block, ...] | list[Block]) -> dict[int | None, int | None]:
    return {block.locator.page: block.locator.printed_page for block in blocks}


def test_a_footer_that_counts_the_pages_gives_their_printed_numbers() -> None:
    # A cover and a contents, then pages whose footers count from 1; a figure at the end of a
    # body sentence or alone at a page's edge without neighbours is no page number.
    bodies = [
        ["Annual report 2023"],
        ["Contents", "Results 1", "Outlook 3"],
        ["Our results grew in every region.", "Version 1.3 1"],
        ["(2)", "Revenue rose by 12 percent to reach 7"],
        ["Outlook for the year ahead.", "Page 3 of 40"],
        ["Appendix with a lone figure.", "17"],
    ]
    document = PdfParser().parse(labelled_pdf(bodies), name="report.pdf")
    assert printed(document.blocks) == {1: None, 2: None, 3: 1, 4: 2, 5: 3, 6: None}
    assert next(b for b in document.blocks if b.locator.page == 4).locator.describe() == (
        "page 4 (printed 2)"
    )


def test_page_labels_of_the_pdf_are_taken_at_their_word() -> None:
    # Roman numerals for the front matter, then 1, 2, 3; the body text's own numbers do not
    # count, however well they count on.
    bodies = [[f"Body of sheet {i} about topic {i}"] for i in range(5)]
    document = PdfParser().parse(
        labelled_pdf(bodies, "0 << /S /r >> 2 << /S /D >>"), name="labelled.pdf"
    )
    assert printed(document.blocks) == {1: None, 2: None, 3: 1, 4: 2, 5: 3}


def test_where_two_numbers_count_on_the_common_distance_wins() -> None:
    # Footers count from 3 (two pages of front matter); pages 3 and 4 also open with numbered
    # steps, which count on as well but keep their distance on two pages only.
    def page(number: int) -> list[Block]:
        where = Locator(page=number)
        opening = f"Step {number + 1}" if number in (3, 4) else "Guide"
        return [
            Block(BlockKind.TEXT, opening, where),
            Block(BlockKind.TEXT, "A paragraph of the guide's body text.", where),
            Block(BlockKind.TEXT, f"Guide {number + 2}", where),
        ]

    blocks = [block for number in range(1, 6) for block in page(number)]
    found = _with_printed_pages(blocks, [None] * 5)
    assert printed(found) == {1: 3, 2: 4, 3: 5, 4: 6, 5: 7}
    assert [block.text for block in found] == [block.text for block in blocks]


@pytest.mark.parametrize("pages", [1, 2])
def test_a_short_document_is_not_searched_for_page_numbers(pages: int) -> None:
    blocks = [Block(BlockKind.TEXT, f"Text {n + 5}", Locator(page=n + 1)) for n in range(pages)]
    assert _with_printed_pages(blocks, [None] * pages) == blocks
