from __future__ import annotations

from pathlib import Path

import pytest

from polyrag.errors import ConfigError
from polyrag.settings import load_settings


def test_defaults_env_file_and_preset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config.toml").write_text("[retrieve]\nk = 9\nrrf_k = 20\n")
    monkeypatch.setenv("POLYRAG_RETRIEVE__RRF_K", "30")
    settings = load_settings(tmp_path)
    assert settings.home == tmp_path
    assert settings.retrieve.k == 9  # from the file
    assert settings.retrieve.rrf_k == 30  # the environment beats the file
    assert load_settings(tmp_path, preset="quality").answer.context_tokens == 3000
    assert settings.model_cache.name == "models"


def test_unknown_and_invalid_settings_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_text("[retrieve]\nkk = 1\n")
    with pytest.raises(ConfigError, match=r"retrieve\.kk"):
        load_settings(tmp_path)
    (tmp_path / "config.toml").write_text("[chunk]\nmax_tokens = 999\n")
    with pytest.raises(ConfigError, match=r"chunk\.max_tokens"):
        load_settings(tmp_path)
