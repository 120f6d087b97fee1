"""Evidence people can see: a cited PDF page, a scan and a picture drawn with the cited region
highlighted, and the original file (a recording played from its cited second)."""

from __future__ import annotations

import io

from fastapi.testclient import TestClient
from PIL import Image

from ..conftest import CORPUS
from .conftest import upload

YELLOW = (255, 214, 0)


def cited(client: TestClient, workspace: str, query: str) -> dict[str, object]:
    found = client.post(f"/api/v1/workspaces/{workspace}/search", json={"query": query, "k": 1})
    hit: dict[str, object] = found.json()["hits"][0]
    return hit


def drawn(client: TestClient, url: str) -> Image.Image:
    response = client.get(url)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/png"
    return Image.open(io.BytesIO(response.content)).convert("RGB")


def tinted(image: Image.Image, x: float, y: float) -> bool:
    """Whether the pixel leans to the highlight's yellow (more red and green than blue)."""
    red, green, blue = image.getpixel((int(x), int(y)))  # type: ignore[misc]
    return red > blue + 25 and green > blue + 10


def test_a_pdf_citation_is_drawn_on_its_page(client: TestClient, workspace: str) -> None:
    pdf = CORPUS / "pdf_scanned" / "docling__ocr_test.pdf"
    upload(client, workspace, (pdf.name, pdf.read_bytes()))
    hit = cited(client, workspace, "Docling bundles PDF document conversion")
    locator = hit["locator"]
    assert isinstance(locator, dict) and locator["page"] == 1 and "bbox" in locator
    x0, y0, x1, y1 = locator["bbox"]
    box = ",".join(str(v) for v in locator["bbox"])
    base = f"/api/v1/workspaces/{workspace}/sources/{hit['source_id']}/pages/1.png"
    plain = drawn(client, f"{base}?scale=1")
    marked = drawn(client, f"{base}?scale=1&box={box}")
    assert plain.size == marked.size and plain.size[0] > 500  # 72 dpi: a page in points
    height = plain.size[1]
    middle = ((x0 + x1) / 2, height - (y0 + y1) / 2)  # PDF points, y up → pixels, y down
    assert tinted(marked, *middle) and not tinted(plain, *middle)
    corner = (2, 2)  # outside the box: unchanged
    assert marked.getpixel(corner) == plain.getpixel(corner)
    twice = drawn(client, f"{base}?scale=2")
    assert abs(twice.size[0] - 2 * plain.size[0]) <= 1  # each side rounds to whole pixels

    missing = client.get(f"/api/v1/workspaces/{workspace}/sources/{hit['source_id']}/pages/9.png")
    assert missing.status_code == 404 and "not page 9" in missing.json()["error"]
    bad = client.get(f"{base}?box=1,2,3")
    assert bad.status_code == 400 and "four numbers" in bad.json()["error"]


def test_a_picture_citation_is_drawn_on_the_picture(client: TestClient, workspace: str) -> None:
    picture = CORPUS / "image" / "test__phototest.tif"
    upload(client, workspace, (picture.name, picture.read_bytes()))
    hit = cited(client, workspace, "The quick brown dog jumped over the lazy fox")
    locator = hit["locator"]
    assert isinstance(locator, dict) and "bbox" in locator
    x0, y0, x1, y1 = locator["bbox"]
    base = f"/api/v1/workspaces/{workspace}/sources/{hit['source_id']}/pages/1.png"
    marked = drawn(client, f"{base}?box={x0},{y0},{x1},{y1}")
    original = Image.open(picture).convert("RGB")
    assert marked.size == original.size
    assert tinted(marked, (x0 + x1) / 2, y0 + 1) and not tinted(original, (x0 + x1) / 2, y0 + 1)


def test_the_original_file_is_served_in_ranges(client: TestClient, workspace: str) -> None:
    recording = CORPUS / "audio" / "docling__sample_10s.mp3"
    upload(client, workspace, (recording.name, recording.read_bytes()))
    source = client.get(f"/api/v1/workspaces/{workspace}/sources").json()["sources"][0]
    url = f"/api/v1/workspaces/{workspace}/sources/{source['source_id']}/file"
    whole = client.get(url)
    assert whole.status_code == 200 and whole.content == recording.read_bytes()
    assert "docling__sample_10s.mp3" in whole.headers["content-disposition"]
    part = client.get(url, headers={"range": "bytes=100-199"})
    assert part.status_code == 206 and part.content == recording.read_bytes()[100:200]
    nothing = client.get(
        f"/api/v1/workspaces/{workspace}/sources/{source['source_id']}/pages/1.png"
    )
    assert nothing.status_code == 422 and "has no pages to draw" in nothing.json()["error"]


def test_a_slide_citation_shows_the_slide(client: TestClient, workspace: str) -> None:
    deck = CORPUS / "pptx" / "docling__powerpoint_sample.pptx"
    upload(client, workspace, (deck.name, deck.read_bytes()))
    source = client.get(f"/api/v1/workspaces/{workspace}/sources").json()["sources"][0]
    url = f"/api/v1/workspaces/{workspace}/sources/{source['source_id']}/pages/1.png?scale=1"
    slide = drawn(client, url)
    assert slide.width > slide.height  # a slide, drawn as LibreOffice lays it out
    assert len(set(slide.resize((32, 18)).getdata())) > 3  # not a blank page
    again = drawn(client, url)  # from the cached conversion this time
    assert again.size == slide.size


def test_an_email_citation_comes_with_its_headers(client: TestClient, workspace: str) -> None:
    for name in ("unstructured__fake-email-attachment.eml", "unstructured__fake-email.msg"):
        mail = CORPUS / "email" / name
        upload(client, workspace, (mail.name, mail.read_bytes()))
    sources = client.get(f"/api/v1/workspaces/{workspace}/sources").json()["sources"]
    by_name = {source["name"]: source for source in sources}
    base = f"/api/v1/workspaces/{workspace}/sources"
    for name in ("unstructured__fake-email-attachment.eml", "unstructured__fake-email.msg"):
        message = client.get(f"{base}/{by_name[name]['source_id']}/message")
        assert message.status_code == 200, message.text
        headers = {h["name"]: h["value"] for h in message.json()["headers"]}
        assert {"From", "To", "Subject"} <= set(headers), headers
        assert "@" in headers["From"] and headers["Subject"]
    carrier = by_name["unstructured__fake-email-attachment.eml"]
    attached = client.get(f"{base}/{carrier['source_id']}/message").json()["attachments"]
    assert attached == ["fake-attachment.txt"]
    # Not an e-mail, or no file of its own: one line says so.
    upload(client, workspace, ("notes.txt", b"Plain notes, not a message."))
    notes = next(s for s in client.get(base).json()["sources"] if s["name"] == "notes.txt")
    refused = client.get(f"{base}/{notes['source_id']}/message")
    assert refused.status_code == 422 and "is not an e-mail" in refused.json()["error"]
    child = next(s for s in client.get(base).json()["sources"] if s["parent"])
    inside = client.get(f"{base}/{child['source_id']}/message")
    assert inside.status_code == 404 and "stored inside another file" in inside.json()["error"]
