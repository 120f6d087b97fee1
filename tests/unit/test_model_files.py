from __future__ import annotations

from pathlib import Path

import pytest

from polyrag.errors import ModelFileError
from polyrag.models.files import model_path
from polyrag.models.registry import MINILM_TOKENIZER, PackagedModel, Part


def test_packaged_file_is_found_and_verified(tmp_path: Path) -> None:
    path = model_path(MINILM_TOKENIZER, tmp_path)
    assert path.name == "tokenizer.json"
    assert (tmp_path / "verified.json").is_file()


def test_sha_mismatch_and_missing_package_are_clear(tmp_path: Path) -> None:
    wrong = PackagedModel(
        "tokenizer with a wrong hash",
        "tokenizer.json",
        MINILM_TOKENIZER.parts,
        "0" * 64,
        MINILM_TOKENIZER.size,
        "reinstall",
    )
    with pytest.raises(ModelFileError, match="sha256"):
        model_path(wrong, tmp_path)
    missing = PackagedModel("ghost", "g.bin", (Part("no_such_pkg_xyz", "g.bin"),), "0", 1, "x")
    with pytest.raises(ModelFileError, match="not installed"):
        model_path(missing, tmp_path)


def test_split_model_is_joined_and_checked(tmp_path: Path) -> None:
    # Two "parts" that are the same packaged file: the joined file is twice its size.
    part = MINILM_TOKENIZER.parts[0]
    doubled = PackagedModel("doubled", "double.json", (part, part), "1" * 64, 2 * 466_247, "x")
    with pytest.raises(ModelFileError, match="sha256"):
        model_path(doubled, tmp_path / "cache")
    assert (tmp_path / "cache" / "double.json").stat().st_size == 2 * 466_247
