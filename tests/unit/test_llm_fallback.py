"""Control flow of the fallback chain, with scripted chat models."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import pytest

from polyrag.errors import AllProvidersFailedError, ProviderRejectedError, ProviderUnavailableError
from polyrag.llm.base import GenerationOptions, Message, complete
from polyrag.llm.fallback import Attempt, FallbackChain

MESSAGES = [Message("user", "hello")]
OPTIONS = GenerationOptions(max_tokens=16)


@dataclass
class Scripted:
    """Yields its script in order; an exception in the script is raised at that point."""

    name: str
    script: list[str | Exception]
    is_healthy: bool = True
    calls: int = 0
    health_checks: int = 0
    served: list[str] = field(default_factory=list)

    def stream(self, messages: Sequence[Message], options: GenerationOptions) -> Iterator[str]:
        self.calls += 1
        for step in self.script:
            if isinstance(step, Exception):
                raise step
            self.served.append(step)
            yield step

    def healthy(self) -> bool:
        self.health_checks += 1
        return self.is_healthy

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def down(name: str) -> ProviderUnavailableError:
    return ProviderUnavailableError(f"{name}: cannot connect")


def test_first_provider_answers_without_touching_the_rest() -> None:
    first, second = Scripted("a", ["Hel", "lo"]), Scripted("b", ["no"])
    reply = FallbackChain([first, second]).open_stream(MESSAGES, OPTIONS)
    assert reply.provider == "a"
    assert "".join(reply.tokens) == "Hello"
    assert reply.attempts == ()
    assert second.calls == 0


def test_unavailable_before_first_token_moves_on() -> None:
    chain = FallbackChain([Scripted("a", [down("a")]), Scripted("b", ["fine"])])
    reply = chain.open_stream(MESSAGES, OPTIONS)
    assert reply.provider == "b"
    assert "".join(reply.tokens) == "fine"
    assert [attempt.provider for attempt in reply.attempts] == ["a"]
    assert "cannot connect" in reply.attempts[0].error


def test_error_after_first_token_reaches_the_caller() -> None:
    second = Scripted("b", ["other"])
    chain = FallbackChain([Scripted("a", ["par", "tial", down("a")]), second])
    reply = chain.open_stream(MESSAGES, OPTIONS)
    assert reply.provider == "a"
    received: list[str] = []
    with pytest.raises(ProviderUnavailableError):
        for piece in reply.tokens:
            received.append(piece)
    assert received == ["par", "tial"]
    assert second.calls == 0


def test_rejected_provider_moves_on_and_is_recorded() -> None:
    rejected = ProviderRejectedError("a: HTTP 401 invalid key")
    reply = FallbackChain([Scripted("a", [rejected]), Scripted("b", ["ok"])]).open_stream(
        MESSAGES, OPTIONS
    )
    assert reply.provider == "b"
    assert reply.attempts == (Attempt("a", rejected.one_line()),)


def test_unhealthy_provider_is_skipped_without_streaming() -> None:
    sick = Scripted("a", ["never"], is_healthy=False)
    reply = FallbackChain([sick, Scripted("b", ["ok"])]).open_stream(MESSAGES, OPTIONS)
    assert reply.provider == "b"
    assert sick.calls == 0
    assert reply.attempts[0].provider == "a"
    assert "health" in reply.attempts[0].error


def test_health_is_remembered_for_a_while() -> None:
    now = [0.0]
    sick = Scripted("a", ["never"], is_healthy=False)
    chain = FallbackChain([sick, Scripted("b", ["ok"])], health_ttl_s=30, clock=lambda: now[0])
    for _ in range(3):
        "".join(chain.stream(MESSAGES, OPTIONS))
    assert sick.health_checks == 1
    now[0] = 31.0
    sick.is_healthy = True
    reply = chain.open_stream(MESSAGES, OPTIONS)
    assert sick.health_checks == 2
    assert reply.provider == "a"


def test_all_failing_names_every_reason_on_one_line() -> None:
    chain = FallbackChain(
        [
            Scripted("a", [down("a")]),
            Scripted("b", [ProviderRejectedError("b: HTTP 404 no such model")]),
            Scripted("c", ["x"], is_healthy=False),
        ]
    )
    with pytest.raises(AllProvidersFailedError) as caught:
        chain.open_stream(MESSAGES, OPTIONS)
    line = caught.value.one_line()
    assert "\n" not in line
    for part in ("a: cannot connect", "b: HTTP 404 no such model", "c: skipped"):
        assert part in line


def test_no_providers_is_an_error() -> None:
    with pytest.raises(AllProvidersFailedError, match="no language model is configured"):
        FallbackChain([]).open_stream(MESSAGES, OPTIONS)


def test_empty_reply_is_an_answer_not_a_failure() -> None:
    second = Scripted("b", ["unused"])
    reply = FallbackChain([Scripted("a", []), second]).open_stream(MESSAGES, OPTIONS)
    assert reply.provider == "a"
    assert list(reply.tokens) == []
    assert second.calls == 0


def test_empty_pieces_before_a_failure_do_not_commit() -> None:
    chain = FallbackChain([Scripted("a", ["", down("a")]), Scripted("b", ["ok"])])
    assert chain.open_stream(MESSAGES, OPTIONS).provider == "b"


def test_chain_is_a_chat_model() -> None:
    chain = FallbackChain([Scripted("a", [down("a")]), Scripted("b", ["4"])])
    assert chain.name == "chain"
    assert complete(chain, MESSAGES, OPTIONS) == "4"
    assert chain.healthy()
    assert not FallbackChain([Scripted("a", [], is_healthy=False)]).healthy()


def test_tokens_are_counted_by_the_first_healthy_provider() -> None:
    chain = FallbackChain([Scripted("a", [], is_healthy=False), Scripted("b", [])])
    assert chain.count_tokens("three short words") == 3
