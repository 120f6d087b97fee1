"""Two named things compared by asking about each one on its own.

Given both passages and "Are A and B located in the same neighborhood?", a small model tends to
answer yes. Asked about one thing at a time (what is A's neighborhood? is B from England?), it
reads that thing's own passage well. Code then compares the two short findings and writes the
answer, citing both passages. Three shapes are handled:

* "Are A and B (located in / of) the same X?": each one's X, compared by code (the model
  judges only two different wordings, such as "American" and "United States");
* "Are A and B both P?" and "Are both A and B P?": P asked of each;
* "Which N was P, A or B?": P asked of each; the answer is the one that fits, when only one does.

Each finding must be written in its own passage. When a shape does not match, a thing has no
passage of its own, a finding is not in its passage, or the answers cannot tell the two apart,
nothing is decided here and the usual reply is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from polyrag.agent.decisions import decide
from polyrag.agent.questions import stated_in
from polyrag.agent.trace import Trace, now
from polyrag.answer.evidence import Evidence, content_words
from polyrag.answer.prompts import prompt
from polyrag.errors import LLMError
from polyrag.llm.base import Message
from polyrag.llm.fallback import FallbackChain
from polyrag.types import Chunk

_AUX = r"(?i:are|were|is|was|do|does|did|have|has|had)"
# "Were Scott Derrickson and Ed Wood of the same nationality?": the second name ends where the
# lowercase linking words before "the same" begin.
_SAME = re.compile(
    rf"^\W*{_AUX}\s+(?:(?i:both)\s+)?(?:the\s+)?(?P<a>.+?),?\s+and\s+(?:the\s+)?(?P<b>.+?)\s+"
    r"(?P<link>(?:[a-z][\w-]*\s+)*?)the same\s+(?P<attribute>[^?]+?)\s*\?\s*$"
)
_BOTH_AFTER = re.compile(  # "Are A and B both P?"
    rf"^\W*(?P<aux>{_AUX})\s+(?:the\s+)?(?P<a>.+?),?\s+and\s+(?:the\s+)?(?P<b>.+?)\s+both\s+"
    r"(?P<p>[^?]+?)\s*\?\s*$"
)
_BOTH_BEFORE = re.compile(  # "Are both A and B P?": P starts with a lowercase word
    rf"^\W*(?P<aux>{_AUX})\s+both\s+(?:the\s+)?(?P<a>.+?),?\s+and\s+(?:the\s+)?(?P<b>.+?)\s+"
    r"(?P<p>[a-z][^?]*?)\s*\?\s*$"
)
_CHOICE = re.compile(  # "Which writer was from England, Henry Roth or Robert Erskine Childers?"
    r"^\W*(?i:which|who)\s+(?P<stem>[^,?]+?),\s*(?:the\s+)?(?P<a>[^,?]+?),?\s+or\s+"
    r"(?:the\s+)?(?P<b>[^,?]+?)\s*\?\s*$"
)
_VERB = re.compile(r"\b(?P<verb>is|was|are|were|has|had|does|did|do)\s+(?P<rest>.+)$")
# A choice by degree ("which is older", "which has more members") is not a yes/no of each.
_DEGREE = re.compile(
    r"\b(?:more|less|most|least|fewer|fewest|first|last|(?:old|young|larg|small|bigg|high|low|"
    r"long|short|tall|earli|lat|great|bett|wors|clos|near|heavi|light|rich|poor|wid|narrow|"
    r"deep|fast|slow|strong|weak|new|famous)(?:er|est))\b",
    re.I,
)
_SINGULAR = {"are": "is", "were": "was", "do": "does", "have": "has"}
_PLAIN = frozenset({"the", "a", "an", "of", "in", "and", "city", "state"})
_SURE = 0.75  # two differently worded findings are the same only when the model is this sure
_APART = 0.1  # a choice goes to the likelier of two when its share is this much higher


@dataclass(frozen=True)
class Comparison:
    shape: str  # "same", "both" or "choice"
    names: tuple[str, str]
    asked: tuple[str, str]  # the question put about each thing
    attribute: str = ""  # what "same" compares: "nationality", "neighborhood"


class Finding(BaseModel):
    value: str = ""


def comparison_of(question: str) -> Comparison | None:
    """The comparison a question makes of two named things, or None."""
    text = " ".join(question.split())
    if same := _SAME.match(text):
        names = (_name(same["a"]), _name(same["b"]))
        attribute = same["attribute"].strip()
        asked = tuple(f"What is the {attribute} of {name}?" for name in names)
        return Comparison("same", names, (asked[0], asked[1]), attribute)
    both = _BOTH_AFTER.match(text) or _BOTH_BEFORE.match(text)
    if both:
        names = (_name(both["a"]), _name(both["b"]))
        verb = both["aux"].lower()
        verb = _SINGULAR.get(verb, verb).capitalize()
        asked = tuple(f"{verb} {name} {both['p'].strip()}?" for name in names)
        return Comparison("both", names, (asked[0], asked[1]))
    choice = _CHOICE.match(text)
    if choice and not _DEGREE.search(choice["stem"]):
        said = _VERB.search(choice["stem"])
        if said is None:
            return None
        names = (_name(choice["a"]), _name(choice["b"]))
        verb = _SINGULAR.get(said["verb"], said["verb"]).capitalize()
        asked = tuple(f"{verb} {name} {said['rest'].strip()}?" for name in names)
        return Comparison("choice", names, (asked[0], asked[1]))
    return None


def _name(raw: str) -> str:
    return raw.strip(" ,\"'“”")


@dataclass(frozen=True)
class Compared:
    """What code decided, the answer it wrote, and the passages it cites (evidence numbers)."""

    text: str
    cited: tuple[Evidence, Evidence]
    findings: dict[str, str]


def compare(
    comparison: Comparison,
    evidence: Sequence[Evidence],
    chat: FallbackChain,
    trace: Trace,
    calls_left: int,
) -> Compared | None:
    """Ask about each thing in its own passage and decide by code; None when it cannot tell."""
    own = [passage_about(name, evidence) for name in comparison.names]
    first, second = own
    if first is None or second is None or first.chunk.chunk_id == second.chunk.chunk_id:
        return None
    if calls_left < (3 if comparison.shape == "same" else 2):
        return None
    pair = (first, second)
    try:
        if comparison.shape == "same":
            return _same(comparison, pair, chat, trace)
        return _each(comparison, pair, chat, trace)
    except LLMError:
        return None


def passage_about(name: str, evidence: Sequence[Evidence]) -> Evidence | None:
    """The passage of the document titled with the name, else the first passage naming it."""
    wanted = _bare(name)
    for item in evidence:
        title = _bare(_title(item.chunk))
        if title and (title == wanted or wanted in title or title in wanted):
            return item
    for item in evidence:
        if wanted in _bare(item.text):
            return item
    return None


def _same(
    comparison: Comparison, pair: tuple[Evidence, Evidence], chat: FallbackChain, trace: Trace
) -> Compared | None:
    values = []
    for name, item in zip(comparison.names, pair, strict=True):
        found = decide(
            chat,
            trace,
            "attribute",
            Finding,
            max_tokens=40,
            thing=name,
            attribute=comparison.attribute,
            passage=item.text,
        )
        value = found.value.strip(" .")
        if not value or not stated_in(value, [item.text]):
            trace.add(
                "compare",
                f"left to the reply: the {comparison.attribute} of {name} is not read from its "
                "passage",
                {"name": name, "value": value},
            )
            return None
        values.append(value)
    plain = _PLAIN | content_words(comparison.attribute)  # "Ortaköy neighborhood" → ortaköy
    one, two = (content_words(v) - plain for v in values)
    if one and two and (one <= two or two <= one):
        alike = True
    else:  # worded differently: "American" and "United States" may be the same nationality
        started = now()
        text = prompt("alike", "polyrag.agent").format(
            one=values[0], two=values[1], attribute=comparison.attribute
        )
        trace.model_calls += 1
        shares = _weigh(chat, text)
        # Two different findings are different unless the model is sure they name one thing:
        # asked whether "Fatih" and "Ortaköy" are the same neighborhood, it said yes at 0.51.
        alike = shares.get("yes", 0.0) >= _SURE
        trace.add(
            "decide:alike",
            f"{values[0]!r} and {values[1]!r} {'are' if alike else 'are not'} the same "
            f"{comparison.attribute} (yes: {shares.get('yes', 0.0):.2f})",
            {"yes": round(shares.get("yes", 0.0), 3)},
            started,
        )
    first, second = pair
    a, b = comparison.names
    text = (
        f"{'Yes' if alike else 'No'}. The {comparison.attribute} of {a} is {values[0]} "
        f"[{first.n}]; of {b}, {values[1]} [{second.n}]."
    )
    return Compared(text, pair, {a: values[0], b: values[1]})


def _each(
    comparison: Comparison, pair: tuple[Evidence, Evidence], chat: FallbackChain, trace: Trace
) -> Compared | None:
    yes = []
    for asked, item in zip(comparison.asked, pair, strict=True):
        started = now()
        text = prompt("claim", "polyrag.agent").format(passage=item.text, question=asked)
        trace.model_calls += 1
        share = _weigh(chat, text).get("yes", 0.0)
        trace.add("decide:claim", f"{asked} yes: {share:.2f}", {"yes": round(share, 3)}, started)
        yes.append(share)
    fits = [share > 0.5 for share in yes]
    findings = {name: f"{share:.2f}" for name, share in zip(comparison.names, yes, strict=True)}
    said = " ".join(
        f"{asked} {'Yes' if fit else 'No'} [{item.n}]."
        for asked, fit, item in zip(comparison.asked, fits, pair, strict=True)
    )
    if comparison.shape == "both":
        return Compared(f"{'Yes' if all(fits) else 'No'}. {said}", pair, findings)
    if fits[0] != fits[1]:
        chosen = 0 if fits[0] else 1
        return Compared(f"{comparison.names[chosen]} [{pair[chosen].n}]. {said}", pair, findings)
    if abs(yes[0] - yes[1]) >= _APART:
        # The question says one of the two fits: the likelier one, when clearly likelier
        # ("English-born Irish" is from England at 0.23, "American" at 0.12).
        chosen = 0 if yes[0] > yes[1] else 1
        other = 1 - chosen
        text = (
            f"{comparison.names[chosen]} [{pair[chosen].n}]: of the two, its passage fits "
            f'"{comparison.asked[chosen]}" better than {comparison.names[other]}\'s '
            f"[{pair[other].n}]."
        )
        return Compared(text, pair, findings)
    trace.add(
        "compare",
        "left to the reply: asked of each, " + ("both fit" if fits[0] else "neither fits"),
        findings,
    )
    return None


def _weigh(chat: FallbackChain, text: str) -> dict[str, float]:
    shares, _provider = chat.weigh([Message("user", text)], ("yes", "no"))
    return dict(shares)


def _title(chunk: Chunk) -> str:
    path = chunk.locator.heading_path
    return path[0] if path else Path(chunk.path).stem.replace("_", " ")


def _bare(text: str) -> str:
    """Lowercase words only, a title's qualifier dropped: "Kiss and Tell (1945 film)" →
    "kiss and tell"."""
    return " ".join(re.sub(r"\([^)]*\)|[^\w\s]", " ", text.replace("_", " ")).casefold().split())
