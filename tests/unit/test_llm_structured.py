"""JSON objects out of chat replies: fenced, chatty, malformed, and asked again."""

from __future__ import annotations

import pytest

from polyrag.errors import MalformedReplyError, ProviderUnavailableError
from polyrag.llm.base import Message
from polyrag.llm.structured import ask_json, parse_json_object

from .replies import Replies

ASK = [Message("user", "give me JSON")]


@pytest.mark.parametrize(
    "reply",
    [
        '{"a": 1}',
        '```json\n{"a": 1}\n```',
        'Sure! Here it is:\n```\n{"a": 1}\n```\nAnything else?',
        'The object is {"a": 1} as asked.',
    ],
)
def test_objects_are_found_in_fences_and_chatter(reply: str) -> None:
    assert parse_json_object(reply) == {"a": 1}


@pytest.mark.parametrize("reply", ["", "no json here", "[1, 2]", '{"a": 1', "{not: json}"])
def test_no_object_is_none(reply: str) -> None:
    assert parse_json_object(reply) is None


def test_a_malformed_reply_is_asked_again_warmer() -> None:
    model = Replies(["oops", '{"ok": true}'])
    assert ask_json(model, ASK) == {"ok": True}
    first, second = (options for _, options in model.asked)
    assert first.json_output and second.json_output
    assert first.temperature == 0.0 < second.temperature


def test_two_malformed_replies_raise_one_line() -> None:
    model = Replies(["oops", "still\nnot JSON"])
    with pytest.raises(MalformedReplyError) as raised:
        ask_json(model, ASK)
    assert "still not JSON" in raised.value.one_line()
    assert "\n" not in raised.value.one_line()


def test_provider_errors_pass_through() -> None:
    with pytest.raises(ProviderUnavailableError):
        ask_json(Replies([ProviderUnavailableError("down")]), ASK)
