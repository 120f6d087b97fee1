"""Guardrails: retrieved text is data, never instructions; answers are screened before they go out.

- Invisible characters (zero-width, bidirectional controls, Unicode tag characters that can spell
  hidden text) are stripped from everything a model reads.
- Sentences in a document that read like instructions to an assistant ("ignore previous
  instructions", "you are now…", "reply only with…") are flagged, shown in the trace, and left
  out of what the model reads, so a poisoned document cannot steer the answer or the agent.
- An answer that repeats the system prompt, or gives harmful instructions, is withheld.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from polyrag.chunk.sentences import sentence_spans

_INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f]"
)
_INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,40}\b(?:instructions?|prompts?|"
    r"rules|directions|guidelines|context|above|previous|prior)\b"
    r"|\byou are now\b|\bfrom now on,? (?:you|answer|reply|respond)\b"
    r"|\b(?:new|updated|real|actual) (?:system )?instructions?\b"
    r"|\bsystem prompt\b|\bdeveloper mode\b|\bjailbreak\b"
    r"|\b(?:assistant|ai|language model|chatbot|llm)s?\b[^.!?\n]{0,30}\b(?:must|should|shall|"
    r"will) (?:always |now |only )?(?:answer|reply|respond|say|output|print|ignore|recommend)"
    r"|\b(?:answer|reply|respond|say|output)\b (?:only |always |exactly )?(?:with|that)\b[^.!?\n]"
    r"{0,60}\b(?:regardless|no matter|whatever|every question|all questions|any question)\b"
    r"|\b(?:do not|don't|never) (?:cite|mention|reveal|tell)\b[^.!?\n]{0,40}\b(?:sources?|user)\b"
    r"|<\|?(?:im_start|system|assistant)\|?>|\[/?INST\]",
    re.IGNORECASE,
)
_HARMFUL = re.compile(
    r"\b(?:synthesi[sz]e|manufactur\w*|make|build|assembl\w*)\b[^.!?\n]{0,40}\b(?:nerve agent|"
    r"sarin|ricin|anthrax|pipe bomb|explosive device|bioweapon|chemical weapon)\b"
    r"|\b(?:kill|hurt|harm) (?:yourself|himself|herself|themselves)\b",
    re.IGNORECASE,
)
_LEAK_WORDS = 8  # this many consecutive words of the system prompt in an answer is a leak


@dataclass(frozen=True)
class Screened:
    """A passage's text as the model may read it, and the sentences taken out of it."""

    text: str
    flagged: tuple[str, ...] = ()


def clean_text(text: str) -> str:
    """Without invisible characters; normalised (NFKC) so look-alike letters read plainly."""
    return unicodedata.normalize("NFKC", _INVISIBLE.sub("", text))


def screen_passage(text: str) -> Screened:
    """The passage without sentences that address an assistant; those are returned flagged."""
    cleaned = clean_text(text)
    if not _INSTRUCTION.search(cleaned):
        return Screened(cleaned)
    kept: list[str] = []
    flagged: list[str] = []
    last = 0
    for a, b in sentence_spans(cleaned):
        sentence = cleaned[a:b]
        gap = cleaned[last:a]
        last = b
        if _INSTRUCTION.search(sentence):
            flagged.append(" ".join(sentence.split()))
            kept.append(gap + "[instructions removed]")
        else:
            kept.append(gap + sentence)
    return Screened("".join(kept) + cleaned[last:], tuple(flagged))


def instruction_like(text: str) -> bool:
    return bool(_INSTRUCTION.search(clean_text(text)))


def screen_answer(text: str, system_prompts: Sequence[str]) -> str | None:
    """Why an answer must be withheld (it leaks a system prompt, or is harmful), or None."""
    if _HARMFUL.search(text):
        return "harmful content"
    words = _words(text)
    joined = " " + " ".join(words) + " "
    for prompt in system_prompts:
        prompt_words = _words(prompt)
        for start in range(0, max(len(prompt_words) - _LEAK_WORDS + 1, 0)):
            piece = " " + " ".join(prompt_words[start : start + _LEAK_WORDS]) + " "
            if piece in joined:
                return "it repeats the system prompt"
    return None


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())
