"""Prompt templates, kept as files beside this module."""

from __future__ import annotations

from functools import cache
from importlib import resources


@cache
def prompt(name: str) -> str:
    return resources.files("polyrag.answer").joinpath(f"prompts/{name}.txt").read_text("utf-8")
