"""Check a reply against its evidence: citations that exist, numbers that are there or computed
from what is there, words that come from the sources; keep a partial answer, withdraw the rest.

A number in the reply is supported when a cited passage or tool result states it (rounded as
the reply rounds it), or when it is a sum, difference, ratio or percentage change of two numbers
of the cited evidence — code redoes the arithmetic, so a small model's correct computation is
kept and a made-up figure is not. Each sentence is checked on its own: one whose number is
supported by nothing, or whose words mostly are not the sources' (talk about the sources aside),
is withdrawn; a sentence saying what the sources do not state is kept and makes the answer
partial, as does a withdrawn claim with a number. A reply with no supported sentence left is
refused.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from polyrag.answer.citations import (
    MARKER,
    attribute,
    broken_off,
    cited_numbers,
    claims,
    is_refusal,
    strip_markers,
    word_support,
)
from polyrag.answer.evidence import Evidence, content_words, named_numbers
from polyrag.answer.numbers import (
    IN_TEXT,
    SCALES,
    asks_quantity,
    decimals,
    numbers_in_text,
    parse_number,
    same_number,
    show,
    text_number,
    written_numbers,
)
from polyrag.chunk.sentences import sentence_spans
from polyrag.months import MONTH, month_name, written_month
from polyrag.types import NO_ANSWER_FOUND, NOT_SUPPORTED, REFUSAL, Chunk, Citation

MIN_SUPPORT = 0.5  # share of the reply's meaningful words that must be in the cited evidence
_GAP = re.compile(
    r"\b(?:not (?:stated|mentioned|given|provided|specified|available|disclosed|found|included)"
    r"|(?:do|does|did) not (?:state|mention|say|give|provide|specify|include|contain)"
    r"|no information|cannot (?:find|be determined)|is unknown|unclear)\b",
    re.IGNORECASE,
)
# A year, back to 1000 ("the pre-1875 council"); not a part of a longer number ("1,875.5").
_YEAR = re.compile(r"(?<![\d.])(?:1\d|20)\d\d(?!\d|[,.]\d{1,3}(?!\d))")
# A year split over two ("2013/14", "2013–14"), as fiscal and school years are written.
_SPLIT_HEAD = r"(?<!\d)(?:1\d|20)\d\d\s?[/–-]\s?"
_SPLIT_YEAR = re.compile(rf"{_SPLIT_HEAD}\d\d(?!\d)")
_DECADE = re.compile(r"(?<![\d.])(?:1\d|20)\d0['’]?s\b")  # "the 1990s", "the 2000's"
# A sentence that only says where something is written ("This information is found in Exhibit
# 10.73 …", "For details, see Note 7."): it points at a place and answers nothing, unless the
# question asks for a place.
_POINTER = re.compile(
    r"^(?:(?:this|the|such|that|more|further|additional|related|relevant)\s+)?"
    r"(?:information|data|details?|figures?|disclosures?)\b[^.;]*?\b"
    r"(?:is|are|can be|may be|could be|would be)\s+(?:found|located|listed|provided|included|"
    r"disclosed|described|detailed|contained|available|given|presented|set forth|shown|"
    r"reported|discussed)\s+(?:in|on|at|under|within)\b"
    r"|^(?:for\s+(?:more\s+|further\s+)?(?:information|details?)\b[^,]*,\s*)?"
    r"(?:please\s+)?(?:see|refer to)\b",
    re.IGNORECASE,
)
_ASKS_PLACE = re.compile(
    r"\b(?:where|which (?:exhibit|section|item|note|page|part|document|schedule|appendix|file|"
    r"table|chapter|report|form)s?)\b",
    re.IGNORECASE,
)
_LEADING_MARKERS = re.compile(r"^(?:\s*\[\d+(?:\s*[,;–-]\s*\d+)*\])+")
MAX_PAIR_NUMBERS = 60  # numbers of the cited evidence tried in pairs (arithmetic check)


@dataclass(frozen=True)
class Verdict:
    text: str
    refused: bool
    reason: str  # "answered", or why it was refused
    citations: tuple[Citation, ...]
    partial: bool = False
    computed: tuple[str, ...] = ()  # arithmetic the check redid ("1577 − 1373 = 204")
    withdrawn: tuple[str, ...] = ()  # sentences taken out


def verify(
    text: str, evidence: Sequence[Evidence], *, arithmetic: bool = False, question: str = ""
) -> Verdict:
    """`arithmetic`: the question asks for a computation, so a number may be one (sums,
    differences, ratios, percentage changes of two cited numbers are redone and accepted).
    `question`: its words and numbers, restated in the reply, are not claims the sources must
    support."""
    asked = content_words(question)
    if not text.strip() or _only_refusal(text):
        return Verdict(REFUSAL, True, NO_ANSWER_FOUND, ())
    text = strip_markers(_unbracketed(text, evidence), len(evidence))
    by_number = {e.n: e for e in evidence}
    marked = cited_numbers(text, len(evidence))
    # A reply without markers is checked against all the evidence and attributed to the items
    # it shares most with; a tool result whose figure the reply states is cited either way.
    numbers = marked or attribute(text, evidence)
    stated = {value for value, _ in _numbers_of(text)}
    numbers += [
        e.n
        for e in evidence
        if e.derived and e.n not in numbers and any(v in stated for v in written_numbers([e.text]))
    ]
    if not numbers:
        return Verdict(REFUSAL, True, NOT_SUPPORTED, ())
    checked = numbers if marked else [e.n for e in evidence]
    # A tool result is read with what it rests on (a calculation's operands' passages).
    cited_text = [
        text
        for n in checked
        for text in (by_number[n].text, *(c.text for c in by_number[n].backing))
    ]
    # The question's own numbers ("in 2019 and 2018") may be restated: they are not claims.
    known = written_numbers([*cited_text, question])
    everything = _texts(evidence)
    known_anywhere = written_numbers([*everything, question])
    # A date's day ("12 November 2025") is no operand: "3 ÷ 12 × 100 = 25" over "the first
    # three quarters" and the meeting's date supported a made-up 25%.
    days = set(known_anywhere) - set(
        written_numbers([_DAY_OF_MONTH.sub(" ", t) for t in [*everything, question]])
    )
    # A year, quarter, month or rank the question names that no evidence writes: a reply
    # restating it presumes what the sources do not show.
    unseen = unwritten_periods(question, evidence)
    headed = _headings(evidence)
    # Likewise a quantity a lookup names ("with 12 g of inhibitor") over rows of 0 to 10 g: a
    # reply restating it answers for something the sources do not have.
    unnamed = (
        []
        if arithmetic
        else [
            value
            for value in _asked_values(question)
            if value not in set(written_numbers([*everything, *headed]))
        ]
    )
    # And, for a lookup, a name the question gives that no evidence writes ("the population of
    # France" over a table of five other countries): a reply restating it answers for
    # something else.
    letters = _letters(" ".join([*everything, *headed]))
    unwritten = (
        [] if arithmetic else [name for name in _names(question) if _letters(name) not in letters]
    )
    place_asked = bool(_ASKS_PLACE.search(question))
    # An amount of money or a count asked ("in millions of dollars", "how many pairs"): a
    # sentence that gives only rates answers something else ("grew by 15%").
    quantity_asked = asks_quantity(question)
    restated = set(written_numbers([question]))
    kept: list[str] = []
    gaps: list[str] = []
    pointers: list[str] = []
    withdrawn: list[str] = []
    claims_withdrawn = False
    computed: list[str] = []
    for sentence in _sentences(text):
        written = _numbers_of(sentence)
        if _GAP.search(sentence) and not written:
            gaps.append(sentence)
            continue
        if not written and not claims(sentence):
            continue  # talk about the sources ("This can be found in [1].") states nothing
        if broken_off(sentence) and all(value in restated for value, _ in written):
            continue  # "The state with the most checks in November 2015 was [1].": nor this
        if not place_asked and _POINTER.search(_LEADING_MARKERS.sub("", sentence).strip()):
            pointers.append(sentence)
            continue
        if (
            any(year.search(sentence) for year in unseen)
            or any(value in unnamed for value, _ in written)
            or any(_says(sentence, name) for name in unwritten)
            or (quantity_asked and _only_rates(sentence, restated))
        ):
            withdrawn.append(sentence)
            claims_withdrawn = True
            continue
        # "$795,000" for 795 of a table "in thousands": the same quantity in another unit.
        rescaled = [*known, *_rescaled([k for k in known if k not in days], cited_text, sentence)]
        # A sum the reply writes out ("50 + 150 + 200 = 400"), its terms the sources' numbers
        # and its result right, supports its result whether or not a computation was asked.
        if _miswritten_sum(sentence, rescaled):
            withdrawn.append(sentence)  # its own arithmetic is wrong
            claims_withdrawn = True
            continue
        written_out = _written_sum(sentence, rescaled)
        if written_out is not None:
            rescaled.append(written_out[0])
        explained = [
            _explain(value, places, rescaled, arithmetic, days) for value, places in written
        ]
        if all(note is not None for note in explained) and (
            word_support(sentence, cited_text, asked) >= MIN_SUPPORT
        ):
            kept.append(sentence)
            computed += [note for note in explained if note]
            computed += [written_out[1]] if written_out is not None else []
            continue
        # A small model often puts the wrong marker: a sentence the passages it cites do not
        # support, but the other evidence does, is kept and attributed to what supports it.
        anywhere = [
            *known_anywhere,
            *_rescaled([k for k in known_anywhere if k not in days], everything, sentence),
        ]
        elsewhere = [_explain(v, places, anywhere, arithmetic, days) for v, places in written]
        if (
            marked
            and all(note is not None for note in elsewhere)
            and (word_support(sentence, everything) >= MIN_SUPPORT)
        ):
            right = attribute(sentence, evidence)
            marks = "".join(f"[{n}]" for n in right)
            kept.append(f"{MARKER.sub('', sentence).rstrip(' .')} {marks}.".replace(" .", "."))
            computed += [note for note in elsewhere if note]
            numbers += [n for n in right if n not in numbers]
            continue
        withdrawn.append(sentence)
        claims_withdrawn = claims_withdrawn or any(note is None for note in explained)
    if not kept:
        # Pointing at a place, or stating nothing ("The CFO of X is [1]."): the model gave no
        # answer.
        reason = NO_ANSWER_FOUND if not withdrawn else NOT_SUPPORTED
        return Verdict(REFUSAL, True, reason, (), withdrawn=tuple(withdrawn + pointers or [text]))
    answer = " ".join(kept + gaps)
    used = cited_numbers(answer, len(evidence)) or numbers
    citations = _citations(used, by_number)
    return Verdict(
        answer,
        False,
        "answered",
        citations,
        partial=bool(gaps) or claims_withdrawn,
        computed=tuple(dict.fromkeys(computed)),
        withdrawn=tuple(withdrawn + pointers),
    )


_SCALE_IN_SOURCE = re.compile(r"\b(thousand|million|billion)s?\b", re.IGNORECASE)
# A currency in thousands or millions as headers write it: "Q3 2025 (kEUR)", "TUSD", "m€".
_SCALED_CURRENCY = re.compile(
    r"(?<![A-Za-z])(k|T|m|M|Mio\.?\s?|Mn\s?)(?:EUR|USD|GBP|CHF|€|\$|£)(?![A-Za-z])"
)
_CURRENCY_SCALE = {
    "k": "thousand", "t": "thousand", "m": "million", "mio": "million", "mn": "million"
}  # fmt: skip
_SCALE_IN_REPLY = re.compile(r"\d\s*(thousand|million|billion)\b", re.IGNORECASE)


def _rescaled(known: Sequence[float], sources: Sequence[str], sentence: str) -> list[float]:
    """The known numbers in the unit a reply sentence writes: a table "in thousands" (or in
    "kEUR") read as dollars ("795" → 795,000), or millions as billions ("1,010" → "1.01
    billion")."""
    found = {m.group(1).lower() for text in sources for m in _SCALE_IN_SOURCE.finditer(text)}
    found |= {
        _CURRENCY_SCALE[m.group(1).strip().rstrip(".").lower()]
        for text in sources
        for m in _SCALED_CURRENCY.finditer(text)
    }
    if not found:
        return []
    said = _SCALE_IN_REPLY.search(sentence)
    unit = SCALES[said.group(1).lower()] if said else 1.0
    ratios = {SCALES[word] / unit for word in found} - {1.0}
    return [k * ratio for k in known for ratio in ratios if k]


def _texts(evidence: Sequence[Evidence]) -> list[str]:
    """Every text shown: each item's, and what a tool result rests on."""
    return [t for e in evidence for t in (e.text, *(c.text for c in e.backing))]


def _headings(evidence: Sequence[Evidence]) -> list[str]:
    """Each item's headings and file name: a quarterly report is often named for its quarter
    ("BESTBUY_2024Q2_10Q") while its pages say "three months ended"."""
    return [" ".join((*e.chunk.locator.heading_path, Path(e.chunk.path).stem)) for e in evidence]


def unwritten_periods(
    question: str, evidence: Sequence[Evidence], *, ranks: bool = True
) -> list[re.Pattern[str]]:
    """The years, quarters, months and ranks a question names that no evidence writes, each as
    the pattern of its written forms: "How many ducks in 2018?" over a table of 2019 to 2024,
    "the revenue in April" over rows of January to March, "the 22nd most liveable city" over
    a passage ranking it 32nd. A passage's headings and its file's name count ("January–June
    2023" over a table's rows; "BESTBUY_2024Q2_10Q" while its pages say "three months
    ended"), and a "year" some source writes as an amount ("1,500") is no year it lacks."""
    everything = _texts(evidence)
    headed = _headings(evidence)
    amounts = set(written_numbers([_DECADE.sub(" ", t) for t in everything]))
    asked = [
        _written_year(year, decade)
        for year, decade in dict.fromkeys(_years_of(question))
        if float(year) not in amounts
    ]
    asked += [_written_part(*part) for part in dict.fromkeys(_parts_of_year(question))]
    asked += [written_month(month) for month in dict.fromkeys(_months_of(question))]
    if ranks:  # without: "the 2nd most checks" asks a ranking, not a rank some source writes
        asked += [_written_ordinal(n) for n in dict.fromkeys(_ordinals_of(question))]
    return [when for when in asked if not any(when.search(t) for t in [*everything, *headed])]


_NEAR_YEARS = 50


def years_of_another_time(question: str, held: Sequence[Evidence]) -> tuple[list[str], list[str]]:
    """The years a question names and the other years written where a reply rests, when each
    passage it rests on (with its headings and file name) writes years but none of those
    asked: "As of 2014 how quickly is building material being printed?" answered from "as of
    January 2013 … printers capable of 3.5 metres per hour", while 2014 is written only in the
    next passage, of a building scheduled for that year. Empty otherwise: a passage writing an
    asked year, or no year within 50 of it ("the current year"; "1500 employees"), may well be
    about it; a decade is left alone ("the 1990s" over "in 1995")."""
    asked = list(dict.fromkeys(_years_of(question)))
    if not asked or not held or any(decade for _, decade in asked) or _SPLIT_YEAR.search(question):
        return [], []
    forms = [_written_year(year) for year, _ in asked]
    # A split year names the year asked as its second: "2013/14", "2013–14".
    forms += [re.compile(rf"{_SPLIT_HEAD}{year[2:]}(?!\d)") for year, _ in asked]
    others: list[str] = []
    for item in held:
        texts = [*_texts([item]), *_headings([item])]
        if any(form.search(text) for form in forms for text in texts):
            return [], []
        # Another time near the one asked: "1500 employees" is no year beside 2019.
        written = [
            found.group(0)
            for text in texts
            for found in _YEAR.finditer(text)
            if any(abs(int(found.group(0)) - int(year)) <= _NEAR_YEARS for year, _ in asked)
        ]
        if not written:
            return [], []
        others += written
    return [year for year, _ in asked], list(dict.fromkeys(others))


def _years_of(question: str) -> list[tuple[str, bool]]:
    """The years a question names, each with whether it names the decade ("the 1990s"; not
    "1990's", which may be the year's)."""
    return [
        (match.group(0), bool(_DECADE_END.match(question, match.end())))
        for match in _YEAR.finditer(question)
    ]


_DECADE_END = re.compile(r"s\b")


def _written_year(year: str, decade: bool = False) -> re.Pattern[str]:
    """A year as sources write it: 2018, "2 0 1 8" (PDF letter spacing), FY18, '18, "since 67"
    (a sheet named "Stanley Cups Since 67"); never the decade ("the 2000s" is no answer for "in
    the year 2000"). A decade as written: the 1990s, the 1990's, the '90s."""
    if decade:
        return re.compile(rf"(?<!\d){year}['’]?s\b|'{year[2:]}s\b", re.IGNORECASE)
    spaced = r"\s?".join(year)
    short = rf"(?:FY|'|\b(?:since|until|till|through)\s)\s?{year[2:]}(?![\d.,]?\d|s\b)"
    return re.compile(rf"(?<!\d){spaced}(?!\d|s\b)|{short}", re.IGNORECASE)


_MONTH_NAME = re.compile(rf"\b{MONTH}\b", re.IGNORECASE)


def _months_of(question: str) -> list[str]:
    """The months a question names as periods of their own ("in April", "Apr.", "in December
    2015"), written out; not a date's month ("December 31, 2022", "31 December 2019", "1st
    July 2022": sources write dates in many ways, and a filing's excerpt may leave its
    header's date out), nor "May" opening the question."""
    text = question.strip()
    return [
        month_name(found.group(0))
        for found in _MONTH_NAME.finditer(text)
        if found.group(0)[0].isupper()  # "may" is a verb
        and not (found.group(0) == "May" and found.start() == 0)
        and not _DATED.search(text[: found.start()])
        and (
            not re.match(r"\.?[,/-]?\s*\d", text[found.end() :])
            or re.match(r"\.?\s*(?:19|20)\d\d(?![\d,/-])", text[found.end() :])
        )
    ]


# A day written before a month: "31 December 2019", "the 1st July 2022".
_DATED = re.compile(r"\b\d{1,2}(?:st|nd|rd|th)?\s*(?:of\s+)?$", re.IGNORECASE)


_PART = re.compile(
    r"\b(?:(Q|H)([1-4])|([1-4])(Q)|(first|second|third|fourth) (quarter|half))\b", re.IGNORECASE
)
_UNITS = (
    "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
    "seventeenth", "eighteenth", "nineteenth",
)  # fmt: skip


def _parts_of_year(question: str) -> list[tuple[str, int]]:
    """The quarters and halves a question names: ("Q", 4) for "Q4", "4Q" or "fourth quarter"."""
    parts = []
    for match in _PART.finditer(question):
        letter, number, digit, after, ordinal, noun = match.groups()
        if ordinal:
            parts.append((noun[0].upper(), _UNITS.index(ordinal.lower()) + 1))
        elif letter:
            parts.append((letter.upper(), int(number)))
        else:
            parts.append((after.upper(), int(digit)))
    return [(kind, n) for kind, n in parts if kind == "Q" or n <= 2]


# Periods of a quarter's or a half's length, written without naming which one ("three months
# ended June 30", "January–June 2023", "half-year"): a source that speaks of such periods may
# hold the one asked for, under a fiscal calendar code cannot know.
_SPAN_OF = {
    "Q": r"\b(?:three|3) months\b",
    "H": r"\b(?:six|6) months\b|\bhalf[- ]year|\binterim\b|"
    r"\b(?:Jan(?:uary)?\.?\s*[–—-]\s*June?|July?\.?\s*[–—-]\s*Dec(?:ember)?)\b",
}


def _written_part(kind: str, number: int) -> re.Pattern[str]:
    """A quarter or half as sources write it: Q4, 4Q, "fourth quarter"; H1, "first half"; or
    any period of that length ("three months ended …", "January–June")."""
    noun = "quarter" if kind == "Q" else "half"
    ordinal = _UNITS[number - 1]
    return re.compile(
        rf"(?<![A-Za-z]){kind}{number}(?!\d)|\b{number}{kind}\b|\b{ordinal} {noun}\b|"
        rf"\b{noun} {number}\b|{_SPAN_OF[kind]}",
        re.IGNORECASE,
    )


# An ordinal in digits ("the 22nd most liveable"), not a century's (sources write "the 1700s").
_ORDINAL = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b(?!\s+centur)", re.IGNORECASE)
_TENS = ("twent", "thirt", "fort", "fift", "sixt", "sevent", "eight", "ninet")


def _ordinals_of(question: str) -> list[int]:
    return [int(match.group(1)) for match in _ORDINAL.finditer(question) if int(match.group(1))]


def _written_ordinal(number: int) -> re.Pattern[str]:
    """A rank as sources write it: 22nd, 22 nd, twenty-second, twenty second."""
    if number < 20:
        word = _UNITS[number - 1]
    else:
        tens, unit = divmod(number, 10)
        word = (
            f"{_TENS[tens - 2]}(?:y[- ]?{_UNITS[unit - 1]})" if unit else f"{_TENS[tens - 2]}ieth"
        )
    return re.compile(rf"(?<!\d){number}\s?(?:st|nd|rd|th)\b|\b{word}\b", re.IGNORECASE)


def _only_refusal(text: str) -> bool:
    """A reply that declines and states nothing else."""
    if not is_refusal(text):
        return False
    facts = [s for s in _sentences(text) if not is_refusal(s) and not _GAP.search(s)]
    return not any(MARKER.search(s) for s in facts)


def _unbracketed(text: str, evidence: Sequence[Evidence]) -> str:
    """A figure the reply put in brackets ("is [670]."), beyond the evidence's numbers and
    written in it, as the figure, not a marker to drop."""
    written = {value for e in evidence for value in numbers_in_text(e.text)}

    def figure(match: re.Match[str]) -> str:
        value = int(match.group(1))
        return match.group(1) if value > len(evidence) and value in written else match.group(0)

    return re.sub(r"\[(\d+)\]", figure, text)


def _sentences(text: str) -> list[str]:
    """The reply's sentences; a piece with no words (a marker after the full stop) joins the
    sentence before it."""
    out: list[str] = []
    for a, b in sentence_spans(text):
        piece = text[a:b].strip()
        leading = _LEADING_MARKERS.match(piece)
        if out and leading:  # "… 212 degrees. [1] It is …": the [1] ends the sentence before
            out[-1] = f"{out[-1]} {leading.group(0).strip()}"
            piece = piece[leading.end() :].strip()
        if not piece:
            continue
        if out and not re.search(r"[^\W\d_]|\d", MARKER.sub("", piece)):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def _numbers_of(sentence: str) -> list[tuple[float, int]]:
    """(value, decimals written) of each number in a sentence, markers left out."""
    body = MARKER.sub(" ", sentence)
    out = []
    for match in IN_TEXT.finditer(body):
        raw = match.group(0)
        value = text_number(raw)
        if value is None:
            continue
        out.append((value, decimals(raw)))
    return out


def _only_rates(sentence: str, restated: set[float]) -> bool:
    """Whether the sentence's numbers are percentages, but for those the question writes (its
    years) — a percentage counts whatever the question writes ("10%" beside "10-K")."""
    body = MARKER.sub(" ", sentence)
    kept = []
    for match in IN_TEXT.finditer(body):
        raw = match.group(0)
        rate = raw.endswith("%") or body[match.end() :].lstrip().lower().startswith("percent")
        if rate or text_number(raw) not in restated:
            kept.append(rate)
    return bool(kept) and all(kept)


_SUM_PART = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)|\s([+−-])\s")


def _sum_of_known(
    sentence: str, known: Sequence[float]
) -> tuple[list[float], list[str], float, float] | None:
    """(terms, signs, the result written, the result worked out) when the sentence writes out
    a sum or difference of known numbers ("420,000 − 310,000 = 110,000"); else None."""
    left, equals, right = MARKER.sub(" ", sentence).partition("=")
    if not equals or "=" in right:
        return None
    parts = [(m.group(1), m.group(2)) for m in _SUM_PART.finditer(f" {left} ")]
    terms = [parse_number(number) for number, _ in parts if number]
    signs = [sign for _, sign in parts if sign]
    found = next(IN_TEXT.finditer(right), None)
    result = text_number(found.group(0)) if found else None
    if found and result is not None and re.search(r"[-−]\s?$", right[: found.start()]):
        result = -result  # "= -110,000"
    kinds = [bool(number) for number, _ in parts]
    alternating = kinds == [i % 2 == 0 for i in range(len(kinds))]
    if result is None or len(terms) < 2 or not alternating or None in terms:
        return None
    values = [float(t) for t in terms if t is not None]
    if not all(any(same_number(k, v) for k in known) for v in values):
        return None
    total = values[0]
    for sign, value in zip(signs, values[1:], strict=True):
        total = total + value if sign == "+" else total - value
    return values, signs, result, total


def _miswritten_sum(sentence: str, known: Sequence[float]) -> bool:
    """Whether the sentence writes out a sum or difference of known numbers with a wrong
    result ("420,000 EUR - 310,000 EUR = -110,000 EUR")."""
    written = _sum_of_known(sentence, known)
    if written is None:
        return False
    total, result = written[3], written[2]
    return (total < 0) != (result < 0) or not same_number(total, result, 1e-4)


def _written_sum(sentence: str, known: Sequence[float]) -> tuple[float, str] | None:
    """(result, formula) when the sentence writes out a sum or difference of known numbers
    and its right result ("50 calories from leaves + 150 … = 400 calories"); else None."""
    written = _sum_of_known(sentence, known)
    if written is None:
        return None
    values, signs, result, total = written
    if (total < 0) != (result < 0) or not same_number(total, result, 1e-4):
        return None
    formula = " ".join(
        [
            show(values[0]),
            *(
                f"{'+' if s == '+' else '−'} {show(v)}"
                for s, v in zip(signs, values[1:], strict=True)
            ),
        ]
    )
    return result, f"{formula} = {show(result)}"


_MONTHS = rf"{MONTH}\.?"
_NAME = re.compile(r"(?<!^)(?<![.?!]\s)\b([A-Z][\w&-]*(?:'s)?)")
_NOT_NAMES = frozenset(
    {"I", "The", "A", "An", "In", "On", "At", "Of", "For", "What", "Which", "Who", "When", "How",
     "Company", "Companies", "Group", "Corporation", "Corp", "Inc", "Ltd", "Plc", "Holdings",
     "Board", "Directors", "Management", "Government", "Report", "Annual", "Statement",
     "Statements", "Note", "Notes", "Table", "Figure", "Section", "Chapter", "Part", "Item",
     "Form", "Exhibit", "Schedule", "Appendix"}
)  # fmt: skip


_CALENDAR = re.compile(
    rf"{_MONTHS}|(?:mon|tues|wednes|thurs|fri|satur|sun)day|fiscal|year|quarter", re.IGNORECASE
)


def _names(question: str) -> list[str]:
    """The capitalised words of a question, but its first (a name as the question gives it:
    "France", "Harper"), without a possessive "'s"; acronyms, short forms ("JnJ"), months and
    periods left out."""
    found = [m.group(1).removesuffix("'s") for m in _NAME.finditer(question.strip())]
    return [
        name
        for name in dict.fromkeys(found)
        if len(name) >= 3
        and name not in _NOT_NAMES
        and not name.isupper()  # "DPO", "EBITDA": a measure sources spell out, not a name
        and not any(c.isupper() for c in name[1:])  # "JnJ": a short form of a longer name
        and not any(c.isdigit() for c in name)  # "FY2023", "Q4": periods have their own check
        and not _CALENDAR.fullmatch(name)
    ]


def _letters(text: str) -> str:
    """Letters and digits only, lower case: "Best Buy" is written in "BESTBUY_2024Q2_10Q", and
    "Huguenot" in "Huguenots"."""
    return re.sub(r"[^0-9a-z]", "", text.lower())


def _says(sentence: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}", sentence, re.IGNORECASE) is not None


_DAY_OF_MONTH = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTHS}|\b{_MONTHS}\s+\d{{1,2}}\b", re.IGNORECASE
)


# A bound the question compares with ("less than 100 million", "exceed $20,000"): the
# sources need not write it, and a reply may well restate it.
# Nor a count of things the question asks for ("the 3 dates listed", "over the 2 years"); but
# a number of things it names a row by is asked ("with 8 encoder layers").
_THRESHOLD = re.compile(
    r"\b(?:(?:less|more|greater|fewer|higher|lower|other) than|exceed(?:s|ed|ing)?|over|under|"
    r"above|below|at (?:least|most)|up to|beyond)\s+[$€£]?\s?\d[\d,.]*|"
    r"\b(?:the|these|those|all|last|past|next|first|top|over|within|in)\s+"
    r"\d+[ -](?:[a-z]+ )?[a-z]{2,}s\b",
    re.IGNORECASE,
)


def _asked_values(question: str) -> list[float]:
    """The numbers standing alone in a question, years and days of a date ("31 December")
    left out: a year has its own check, and a date's day is often written otherwise."""
    values = []
    for key in named_numbers(_THRESHOLD.sub(" ", _DAY_OF_MONTH.sub(" ", question)), none=False):
        number = key[1:]
        value = parse_number(number)
        if value is not None and not _YEAR.fullmatch(number):
            values.append(value)
    return values


def _explain(
    value: float,
    decimals: int,
    known: Sequence[float],
    arithmetic: bool,
    days: Collection[float] = (),
) -> str | None:
    """ "" when a known number is `value` (as rounded), a formula when two known numbers give it
    (with `arithmetic`; the `days` of dates are no operands), None when nothing does."""
    if any(_rounds_to(k, value, decimals) for k in known):
        return ""
    if not arithmetic:
        return None
    candidates = [k for k in known if k != 0 and k not in days][:MAX_PAIR_NUMBERS]
    for a, b in itertools.permutations(candidates, 2):
        for result, formula in (
            (a + b, f"{show(a)} + {show(b)}"),
            (a - b, f"{show(a)} − {show(b)}"),
            (a / b, f"{show(a)} ÷ {show(b)}"),
            (a / b * 100, f"{show(a)} ÷ {show(b)} × 100"),
            ((a - b) / b * 100, f"({show(a)} − {show(b)}) ÷ {show(b)} × 100"),
        ):
            if _rounds_to(result, value, decimals):
                return f"{formula} = {show(result)}"
    return None


def _rounds_to(exact: float, written: float, decimals: int) -> bool:
    """Whether `written` is `exact` (or its magnitude) rounded to `decimals` places; a whole
    number of 100 or more must be exact (it is a count or an amount, not a rounded ratio)."""
    if decimals == 0 and abs(written) >= 100:
        return abs(abs(exact) - abs(written)) < 1e-6
    tolerance = 0.5 * 10 ** (-decimals) + 1e-9
    return abs(abs(exact) - abs(written)) <= tolerance


def _citations(numbers: Sequence[int], by_number: dict[int, Evidence]) -> tuple[Citation, ...]:
    """Citations in the order used; a tool result is cited by what it rests on."""
    chunks: list[Chunk] = []
    out: list[Citation] = []
    for n in numbers:
        item = by_number[n]
        for chunk in item.backing or (item.chunk,):
            if chunk.chunk_id not in {c.chunk_id for c in chunks}:
                chunks.append(chunk)
                out.append(Citation(n, chunk))
    return tuple(out)
