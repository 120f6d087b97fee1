"""LocalLlamaModel without a model file: failures are reported, not raised at construction."""

from __future__ import annotations

from pathlib import Path

import pytest

from polyrag.errors import ModelFileError, ProviderUnavailableError
from polyrag.llm.base import GenerationOptions, Message, complete
from polyrag.llm.local import LocalLlamaModel
from polyrag.settings import LocalLLMSettings

QUESTION = [Message("user", "hi")]


def test_a_missing_file_is_unhealthy_and_unavailable(tmp_path: Path) -> None:
    model = LocalLlamaModel(tmp_path / "absent.gguf", LocalLLMSettings.model_validate({}))
    assert model.name == "local:qwen2.5-coder-1.5b"
    assert not model.healthy()
    with pytest.raises(ProviderUnavailableError, match=r"absent\.gguf"):
        complete(model, QUESTION, GenerationOptions(max_tokens=1))


def test_a_file_that_fails_verification_keeps_its_hint() -> None:
    def refuse() -> Path:
        raise ModelFileError("qwen: sha256 mismatch", hint="reinstall the parts")

    model = LocalLlamaModel(refuse, LocalLLMSettings.model_validate({}))
    assert not model.healthy()
    with pytest.raises(ProviderUnavailableError) as caught:
        complete(model, QUESTION, GenerationOptions(max_tokens=1))
    assert caught.value.one_line() == (
        "local:qwen2.5-coder-1.5b: qwen: sha256 mismatch (reinstall the parts)"
    )
