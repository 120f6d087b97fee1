"""Picture descriptions from a vision model: a real chat-completions server on 127.0.0.1."""

from __future__ import annotations

import base64
import io
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from polyrag.parse.image import ImageParser
from polyrag.parse.ocr import Ocr
from polyrag.parse.router import ParserRouter, default_parsers
from polyrag.settings import OcrSettings, ParseSettings, ProviderSettings, VisionSettings
from polyrag.types import BlockKind

CORPUS = Path(__file__).parents[3] / "shared" / "eval" / "corpus"
DESCRIPTION = "A pink frangipani flower among large green leaves."


@dataclass
class VisionServer:
    """Answers POST /v1/chat/completions with `reply` and HTTP `status`; keeps the requests."""

    status: int = 200
    reply: str = DESCRIPTION
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def vision_server() -> Iterator[VisionServer]:
    state = VisionServer()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            state.requests.append({"path": self.path, "json": json.loads(body)})
            if state.status != 200:
                payload: dict[str, Any] = {"error": {"message": "the model is overloaded"}}
            else:
                payload = {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "tiny-vision",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": state.reply},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
            data = json.dumps(payload).encode()
            self.send_response(state.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def settings_for(server: VisionServer, *, ocr: bool = True) -> ParseSettings:
    provider = ProviderSettings(name="tiny", base_url=server.url, model="tiny-vision", timeout_s=5)
    return ParseSettings(
        ocr=OcrSettings(enabled=ocr), vision=VisionSettings(provider=provider, max_side=256)
    )


def photo() -> bytes:
    return (CORPUS / "image/unstructured__example.jpg").read_bytes()


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")
def test_an_image_gets_the_models_description(vision_server: VisionServer) -> None:
    router = ParserRouter(default_parsers(settings_for(vision_server, ocr=False)))
    document = router.parse(photo(), "flower.jpg")
    (block,) = document.blocks
    assert block.kind == BlockKind.PICTURE
    assert block.text == f"flower.jpg (480×360 JPEG image): {DESCRIPTION}"
    (request,) = vision_server.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["json"]["model"] == "tiny-vision"
    text_part, image_part = request["json"]["messages"][0]["content"]
    assert text_part["type"] == "text" and "Describe" in text_part["text"]
    url = image_part["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    sent = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert max(sent.size) == 256  # scaled down before sending


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")
def test_description_comes_before_the_ocr_text(vision_server: VisionServer) -> None:
    vision_server.reply = "A page of typed text about OCR."
    router = ParserRouter(default_parsers(settings_for(vision_server)))
    document = router.parse((CORPUS / "image/test__phototest.tif").read_bytes(), "page.tif")
    assert document.blocks[0].kind == BlockKind.PICTURE
    assert "A page of typed text" in document.blocks[0].text
    assert any("quick brown dog" in b.text for b in document.blocks[1:])


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")
def test_a_failing_vision_endpoint_is_a_warning(vision_server: VisionServer) -> None:
    vision_server.status = 503
    router = ParserRouter(default_parsers(settings_for(vision_server, ocr=False)))
    document = router.parse(photo(), "flower.jpg")
    (block,) = document.blocks
    assert block.kind == BlockKind.PICTURE and "no readable text" in block.text  # placeholder
    (warning,) = document.warnings
    assert "no picture description" in warning and "503" in warning


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the shared eval corpus is absent")
def test_an_unreachable_vision_endpoint_is_a_warning(down_url: str) -> None:
    from polyrag.parse.vision import PictureDescriber

    provider = ProviderSettings(name="down", base_url=down_url, model="m", timeout_s=3)
    parser = ImageParser(
        Ocr(OcrSettings(enabled=False)), PictureDescriber(VisionSettings(provider=provider))
    )
    document = parser.parse(photo(), name="flower.jpg")
    assert document.blocks[0].kind == BlockKind.PICTURE
    assert "vision:down" in document.warnings[0]


def test_offline_there_is_no_describer() -> None:
    parsers = default_parsers(ParseSettings())
    (image_parser,) = [p for p in parsers if isinstance(p, ImageParser)]
    assert image_parser._describer is None
