"""Prompt templates, kept as text files in a `prompts/` folder beside the module that uses them."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def prompt(name: str, package: str = "polyrag.answer") -> str:
    return resources.files(package).joinpath(f"prompts/{name}.txt").read_text("utf-8")
