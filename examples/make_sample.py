"""Regenerate the demo folder `sample/` (the files are committed; this documents their origin).

.venv/bin/python examples/make_sample.py
"""

from __future__ import annotations

import csv
from pathlib import Path

import docx
import openpyxl
import pptx

HERE = Path(__file__).parent / "sample"


def pdf(path: Path, pages: list[list[str]]) -> None:
    """A small born-digital PDF with a text layer, written by hand (Helvetica, Letter size)."""
    objects: list[bytes] = []
    page_ids = []
    font_id = 3
    for lines in pages:
        stream = "BT /F1 11 Tf 72 720 Td 14 TL\n"
        for line in lines:
            escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
            stream += f"({escaped}) Tj T*\n"
        stream += "ET"
        content_id = 4 + len(objects)
        objects.append(
            f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream".encode("latin-1")
        )
        page_id = 4 + len(objects)
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> /Contents {content_id} 0 R >>".encode()
        )
        page_ids.append(page_id)
    kids = " ".join(f"{i} 0 R" for i in page_ids)
    head = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(page_ids)} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    body = b"%PDF-1.4\n"
    offsets = []
    for number, obj in enumerate(head + objects, start=1):
        offsets.append(len(body))
        body += f"{number} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(body)
    body += f"xref\n0 {len(offsets) + 1}\n0000000000 65535 f \n".encode()
    body += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    trailer = f"trailer\n<< /Size {len(offsets) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
    body += trailer.encode()
    path.write_bytes(body)


def main() -> None:
    HERE.mkdir(exist_ok=True)
    (HERE / "travel-policy.md").write_text(
        "# Travel policy\n\n"
        "This policy applies to every employee of Northwind Labs who travels for work.\n\n"
        "## Hotels\n\n"
        "Hotel nights are reimbursed up to a nightly cap that depends on the city. "
        "In London the cap is 220 pounds per night; in Berlin it is 160 euros per night; "
        "everywhere else it is 130 euros per night.\n\n"
        "## Trains and flights\n\n"
        "Trains are preferred for trips under five hours. Flights must be economy class "
        "and booked at least 14 days ahead unless a manager approves an exception.\n",
        encoding="utf-8",
    )
    rows = [
        ("Region", "Q1 revenue (kEUR)", "Q2 revenue (kEUR)", "Q3 revenue (kEUR)"),
        ("Nordics", "410", "455", "502"),
        ("Iberia", "380", "362", "371"),
        ("Benelux", "295", "310", "344"),
    ]
    with (HERE / "regional-revenue.csv").open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)

    document = docx.Document()
    document.add_heading("Aurora launch plan", level=1)
    document.add_paragraph(
        "Aurora is the new field-sensor platform of Northwind Labs. "
        "The public launch happens on 14 March 2027 at the Lisbon customer summit."
    )
    document.add_heading("Owners", level=2)
    table = document.add_table(rows=3, cols=2)
    owners = [("Task", "Owner"), ("Press kit", "Mina Okafor"), ("Demo units", "Jonas Berg")]
    for row, (task, owner) in zip(table.rows, owners, strict=True):
        row.cells[0].text, row.cells[1].text = task, owner
    document.save(str(HERE / "aurora-launch.docx"))

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "New starter checklist"
    slide.placeholders[1].text = "Laptop is issued on day one\nSecurity training within 10 days"
    slide.notes_slide.notes_text_frame.text = "Mentors are assigned by the team lead."
    deck.save(str(HERE / "onboarding.pptx"))

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Headcount"
    for values in [("Team", "People", "Site"), ("Platform", 14, "Lisbon"), ("Sensors", 9, "Oslo")]:
        sheet.append(values)
    book.save(str(HERE / "headcount.xlsx"))

    pdf(
        HERE / "annual-report.pdf",
        [
            [
                "Northwind Labs annual report 2026",
                "",
                "Revenue grew 18 percent to 4.2 million euros.",
            ],
            [
                "Outlook",
                "",
                "The board expects the Aurora platform to reach 1,200 customers by 2028.",
            ],
        ],
    )


if __name__ == "__main__":
    main()
