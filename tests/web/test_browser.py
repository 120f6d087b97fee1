"""The web app in a real browser: Debian's Chromium driven by Playwright (pointed at that
executable; nothing is downloaded). Upload a scanned PDF, a spreadsheet and two e-mails, watch
them index, ask, open citations (the highlighted region on the right page, the sheet's rows, the
e-mail's headers, an attachment's carrier), delete a source, reload and find the chat again.
Screenshots go to the test's folder."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from polyrag import build
from polyrag.api import create_app
from polyrag.llm.base import GenerationOptions, Message
from polyrag.llm.fallback import FallbackChain
from polyrag.settings import Settings, load_settings

from ..conftest import CORPUS, MODELS_DIR
from ..servers import running

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
playwright = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (make install)"
)
ARGS = [  # as the machine's own probe starts it: no background traffic on a closed network
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class Extractor:
    """Answers with the source sentence that shares most words with the question, cited."""

    name = "scripted"

    def stream(self, messages: Sequence[Message], options: GenerationOptions) -> Iterator[str]:
        prompt = messages[-1].content
        if "Follow-up question:" in prompt:  # a rewrite: the follow-up stands as it is
            yield prompt.split("Follow-up question:", 1)[1].split("\n", 1)[0].strip()
            return
        if "<<sources" not in prompt:  # one of the agent's decisions: it decides nothing
            yield "{}"
            return
        question = set(re.findall(r"\w+", prompt.rsplit("Question:", 1)[-1].lower()))
        sources = prompt.split("<<sources", 1)[1].split("<<end", 1)[0]
        best, cited, shared = "", 1, -1
        for number, passage in re.findall(
            r"^\[(\d+)\][^\n]*\n(.*?)(?=^\[\d+\]|\Z)", sources, re.S | re.M
        ):
            for sentence in re.split(r"(?<=[.!?])\s+|\n", passage):
                words = set(re.findall(r"\w+", sentence.lower()))
                if len(words & question) > shared:
                    best, cited, shared = (
                        " ".join(sentence.split()),
                        int(number),
                        len(words & question),
                    )
        yield f"{best} [{cited}]"

    def weigh(self, messages: Sequence[Message], choices: Sequence[str]) -> dict[str, float]:
        return {choice: float(choice == "yes") for choice in choices}

    def healthy(self) -> bool:
        return True

    def count_tokens(self, text: str) -> int:
        return len(text.split())


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    model = Extractor()

    def chain(settings: Settings) -> FallbackChain:
        return FallbackChain([model])

    monkeypatch.setattr(build, "chat", chain)
    app = create_app(load_settings(tmp_path / "home", models_dir=MODELS_DIR))
    with running(app) as url:
        yield url


@pytest.fixture
def page(site: str, tmp_path: Path) -> Iterator[object]:
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        context = browser.new_context(viewport={"width": 1400, "height": 900})
        opened = context.new_page()
        opened.set_default_timeout(60_000)
        try:
            yield opened
        finally:
            browser.close()


def sent(p: object, question: str, n: int) -> object:
    """The `n`-th answer (from 0), once the question sent with the button is answered."""
    p.fill("#question", question)  # type: ignore[attr-defined]
    p.click("#send")  # type: ignore[attr-defined]
    answer = p.locator(".message.assistant").nth(n)  # type: ignore[attr-defined]
    answer.locator(".feedback").wait_for()
    return answer


def test_upload_ask_see_the_evidence_delete_and_come_back(
    site: str, page: object, tmp_path: Path
) -> None:
    p = page  # a playwright Page
    shots = tmp_path / "screenshots"
    shots.mkdir()
    p.goto(site)  # type: ignore[attr-defined]
    p.wait_for_selector("body[data-ready=true]")  # type: ignore[attr-defined]
    assert p.locator("#workspace").input_value() == "default"  # type: ignore[attr-defined]

    scan = CORPUS / "pdf_scanned" / "docling__ocr_test.pdf"
    sheet = CORPUS / "csv" / "unstructured__stanley-cups.csv"
    mail = CORPUS / "email" / "unstructured__fake-email.eml"
    carrier = CORPUS / "email" / "unstructured__fake-email-attachment.eml"
    files = [scan, sheet, mail, carrier]
    p.set_input_files("#file-input", [str(f) for f in files])  # type: ignore[attr-defined]
    # Each file shows in the sources as indexed. (Not waited for in the upload list: a finished
    # upload's row leaves it 4 s later, so on a busy machine a quick file's row was gone before
    # the slow scan's was read.)
    for name in (f.name for f in files):
        listed = p.locator("#sources li", has_text=name)  # type: ignore[attr-defined]
        listed.filter(has_text="indexed").wait_for(timeout=180_000)
    sources = p.locator("#sources li")  # type: ignore[attr-defined]
    assert sources.count() == 4  # the attachment is listed under its e-mail, not on its own
    assert "indexed" in sources.filter(has_text=scan.name).inner_text()
    p.screenshot(path=str(shots / "1-sources.png"))  # type: ignore[attr-defined]

    # Ask about the scan: the answer streams in, a chip opens the page with the region marked.
    p.fill("#question", "What does Docling bundle?")  # type: ignore[attr-defined]
    p.press("#question", "Enter")  # type: ignore[attr-defined]
    answer = p.locator(".message.assistant").last  # type: ignore[attr-defined]
    answer.locator(".feedback").wait_for()
    assert "Docling" in answer.locator(".text").inner_text()
    chip = answer.locator(".chip").first
    assert scan.name in chip.inner_text() and "page 1" in chip.inner_text()
    chip.click()
    image = p.locator("#evidence img.page")  # type: ignore[attr-defined]
    image.wait_for()
    p.wait_for_function("document.querySelector('#evidence img.page').complete")  # type: ignore[attr-defined]
    source = image.get_attribute("src") or ""
    assert "/pages/1.png" in source and "box=" in source
    width = p.evaluate("document.querySelector('#evidence img.page').naturalWidth")  # type: ignore[attr-defined]
    assert width > 800  # the page was drawn, at 1.5 × 72 dpi
    p.screenshot(path=str(shots / "2-evidence-pdf.png"))  # type: ignore[attr-defined]
    answer.locator(".helpful").click()
    p.wait_for_selector(".message.assistant .helpful.chosen")  # type: ignore[attr-defined]

    # A question about the spreadsheet: its chip shows the rows as a table.
    p.select_option("#mode", "fast")  # type: ignore[attr-defined]
    second = sent(p, "How many Stanley Cups have the Maple Leafs won?", 1)
    assert "13" in second.locator(".text").inner_text()
    chip = second.locator(".chip", has_text=sheet.name).first
    # The CSV's rows are cited as cells, the way a spreadsheet names them.
    assert re.search(r"'unstructured__stanley-cups'!A\d+(:C\d+)?", chip.inner_text())
    chip.click()
    table = p.locator("#evidence table")  # type: ignore[attr-defined]
    table.wait_for()
    assert "Maple Leafs" in table.inner_text()
    p.screenshot(path=str(shots / "3-evidence-rows.png"))  # type: ignore[attr-defined]
    p.keyboard.press("Escape")  # type: ignore[attr-defined]
    assert p.locator("#evidence").is_hidden()  # type: ignore[attr-defined]

    # About the e-mail: its chip shows who sent it to whom and when, above the passage.
    third = sent(p, "What colour are violets?", 2)
    assert "blue" in third.locator(".text").inner_text()
    third.locator(".chip", has_text=mail.name).first.click()
    headers = p.locator("#evidence dl.headers")  # type: ignore[attr-defined]
    headers.wait_for()
    shown = headers.inner_text()
    assert "mrobinson@unstructured.io" in shown and "Test Email" in shown and "2022" in shown
    assert p.locator("#evidence-file").inner_text() == "Open the original file"  # type: ignore[attr-defined]
    p.screenshot(path=str(shots / "4-evidence-email.png"))  # type: ignore[attr-defined]
    p.keyboard.press("Escape")  # type: ignore[attr-defined]

    # An attachment has no file of its own: the e-mail that carried it is offered instead.
    fourth = sent(p, "What is the fake attachment?", 3)
    assert "fake attachment" in fourth.locator(".text").inner_text()
    fourth.locator(".chip", has_text="fake-attachment.txt").first.click()
    link = p.locator("#evidence-file")  # type: ignore[attr-defined]
    link.wait_for()
    assert link.inner_text() == f"Open the file that carries it ({carrier.name})"
    listed = p.locator("#sources li", has_text=carrier.name)  # type: ignore[attr-defined]
    carrier_id = listed.get_attribute("data-source-id")
    assert carrier_id and link.get_attribute("href").endswith(f"/sources/{carrier_id}/file")
    p.keyboard.press("Escape")  # type: ignore[attr-defined]

    # Delete the spreadsheet, reload: one source left, the chat listed and whole again.
    p.once("dialog", lambda dialog: dialog.accept())  # type: ignore[attr-defined]
    p.locator("#sources li", has_text=sheet.name).get_by_role(
        "button", name=f"Delete {sheet.name}"
    ).click()  # type: ignore[attr-defined]
    p.locator("#sources li", has_text=sheet.name).wait_for(state="detached")  # type: ignore[attr-defined]
    p.reload()  # type: ignore[attr-defined]
    p.wait_for_selector("body[data-ready=true]")  # type: ignore[attr-defined]
    assert p.locator("#sources li").count() == 3  # type: ignore[attr-defined]
    chats = p.locator("#chats li")  # type: ignore[attr-defined]
    assert chats.count() == 1 and "What does Docling bundle?" in chats.inner_text()
    assert p.locator(".message.assistant").count() == 4  # type: ignore[attr-defined]
    assert p.locator(".message.assistant .helpful.chosen").count() == 1  # type: ignore[attr-defined]
    p.screenshot(path=str(shots / "5-after-reload.png"))  # type: ignore[attr-defined]
