"""The embedded llama.cpp model with the packaged Qwen GGUF."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from polyrag.llm.base import GenerationOptions, Message, complete
from polyrag.llm.local import LocalLlamaModel
from polyrag.settings import LocalLLMSettings

pytestmark = pytest.mark.slow


def test_answers_a_simple_question(local_model: LocalLlamaModel) -> None:
    assert local_model.healthy()
    question = [Message("user", "What is 2+2? Reply with just the number.")]
    assert "4" in complete(local_model, question, GenerationOptions(max_tokens=8))


def test_json_mode_returns_parseable_json(local_model: LocalLlamaModel) -> None:
    ask = [Message("user", "Return a JSON object with keys name and age for Alice, aged 30.")]
    reply = complete(local_model, ask, GenerationOptions(max_tokens=40, json_output=True))
    assert isinstance(json.loads(reply), dict)


def test_counts_tokens_with_the_model_tokenizer(local_model: LocalLlamaModel) -> None:
    assert local_model.count_tokens("") == 0
    assert 1 <= local_model.count_tokens("Hello world") <= 3


def test_a_fixed_system_prompt_is_evaluated_once(local_model: LocalLlamaModel) -> None:
    """llama.cpp keeps the last prompt in its KV cache; a shared prefix is not evaluated again."""
    facts = " ".join(f"Unit {i} reported revenue of {i * 7} million euros." for i in range(40))
    system = Message("system", f"Answer from these facts only.\n{facts}")
    options = GenerationOptions(max_tokens=1)

    def seconds_to_answer(question: str) -> float:  # one token: almost all prompt evaluation
        start = time.perf_counter()
        complete(local_model, [system, Message("user", question)], options)
        return time.perf_counter() - start

    cold = seconds_to_answer("What did unit 3 report?")
    warm = seconds_to_answer("What did unit 12 report?")
    assert warm < cold / 3, f"cold {cold:.2f} s, warm {warm:.2f} s"


def test_a_system_prompt_that_returns_is_not_evaluated_again(
    local_model: LocalLlamaModel,
) -> None:
    """Two long system prompts in turn (the agent's decisions and its reply): the KV cells of
    each are kept, so coming back to one costs a copy, not an evaluation, and its reply's
    probabilities are exactly those of a fresh evaluation."""
    facts = " ".join(f"Unit {i} reported revenue of {i * 7} million euros." for i in range(40))
    rules = " ".join(f"Rule {i}: a claim about unit {i} needs its own line." for i in range(40))
    first = [
        Message("system", f"Answer from these facts only.\n{facts}"),
        Message("user", "Did unit 3 report 21 million euros? Answer yes or no."),
    ]
    second = [
        Message("system", f"Check claims strictly.\n{rules}"),
        Message("user", "Is a claim about unit 5 allowed without its line? Yes or no."),
    ]

    def weighed(messages: list[Message]) -> tuple[dict[str, float], float]:
        start = time.perf_counter()
        shares = local_model.weigh(messages, ("yes", "no"))
        return shares, time.perf_counter() - start

    local_model.close()  # nothing kept from earlier tests
    fresh, cold = weighed(first)
    weighed(second)
    back, warm = weighed(first)
    assert back == fresh
    assert warm < cold / 3, f"cold {cold:.2f} s, warm {warm:.2f} s"


def test_a_prompt_gets_the_same_reply_whatever_was_asked_before(
    local_model: LocalLlamaModel,
) -> None:
    """Only the first message is reused from the KV cache, so a prompt is evaluated in the same
    batches after any history: its probabilities are equal, not merely close (before, they
    moved by a few hundredths with what had been asked, and near-ties flipped greedy replies)."""
    system = Message("system", "Answer in one short sentence.")
    question = [system, Message("user", "Is the sky green? Answer yes or no.")]
    other = [system, Message("user", "Name a colour of the sea.")]
    stranger = [Message("system", "Reply in French."), Message("user", "Bonjour ?")]
    options = GenerationOptions(max_tokens=1)
    first = local_model.weigh(question, ("yes", "no"))
    again = local_model.weigh(question, ("yes", "no"))  # the whole prompt was in the cache
    complete(local_model, other, options)  # the same first message, another question
    after_other = local_model.weigh(question, ("yes", "no"))
    complete(local_model, stranger, options)  # another first message
    after_stranger = local_model.weigh(question, ("yes", "no"))
    assert first == again == after_other == after_stranger
    reply = [Message("user", "List three fruits, comma separated.")]
    texts = set()
    for before in ([], other, stranger, reply):
        if before:
            complete(local_model, before, options)
        texts.add(complete(local_model, reply, GenerationOptions(max_tokens=24)))
    assert len(texts) == 1, texts


def test_concurrent_first_calls_both_get_answers(qwen_gguf: Path) -> None:
    model = LocalLlamaModel(qwen_gguf, LocalLLMSettings.model_validate({"context_window": 512}))
    question = [Message("user", "What is 2+2? Reply with just the number.")]

    def ask(_: int) -> str:
        return complete(model, question, GenerationOptions(max_tokens=8))

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            replies = list(pool.map(ask, [1, 2]))
    finally:
        model.close()
    assert all("4" in reply for reply in replies)
