"""Request bodies (pydantic at the edge); responses are the engine's own `to_dict()` shapes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from polyrag.settings import AskMode
from polyrag.types import Filter, Modality


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Scope(_Body):
    """Which passages may be used: every field that is set must hold."""

    sources: list[str] = Field(default_factory=list, description="Source ids to keep to.")
    modalities: list[Modality] = Field(
        default_factory=list, description="text, table, picture or audio."
    )
    pages: list[int] = Field(default_factory=list, description="Page numbers to keep to.")

    def where(self) -> Filter | None:
        found = Filter(tuple(self.sources), tuple(self.modalities), tuple(self.pages))
        return None if found.is_empty() else found


class SearchBody(Scope):
    query: str = Field(min_length=1, max_length=4000, description="What to look for.")
    k: int | None = Field(None, ge=1, le=200, description="How many passages.")
    mode: Literal["hybrid", "keyword", "vector"] = Field(
        "hybrid", description="BM25 and vectors fused, or either alone."
    )


class TurnBody(_Body):
    question: str
    answer: str


class AskBody(Scope):
    question: str = Field(min_length=1, max_length=4000, description="The question.")
    mode: AskMode | None = Field(
        None, description="How to answer (default: the settings' agent.mode)."
    )
    history: list[TurnBody] = Field(
        default_factory=list, description="Earlier turns, oldest first, for a follow-up."
    )
    thread: str | None = Field(
        None, description="The agent conversation a clarifying question paused: the reply."
    )


class UrlBody(_Body):
    url: str = Field(min_length=1, max_length=4000, description="An http(s) address to index.")


class WorkspaceBody(_Body):
    name: str = Field(description="1-63 lower-case letters, digits, '-' or '_'.")


class ChatBody(_Body):
    title: str = Field(
        "", max_length=200, description="Shown in the list (default: the first question)."
    )


class ChatAskBody(Scope):
    question: str = Field(min_length=1, max_length=4000, description="The question or reply.")
    mode: AskMode | None = Field(
        None, description="How to answer (default: the settings' agent.mode)."
    )


class FeedbackBody(_Body):
    helpful: bool = Field(description="Whether the answer helped.")
    comment: str | None = Field(None, max_length=2000, description="What was wrong or wanted.")
    reconsider: bool = Field(
        False,
        description="With helpful=false: answer again (with the comment) or, without a "
        "comment, ask back what was wanted; the new answer joins the chat.",
    )
