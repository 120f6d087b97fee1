"""Scores for a generated answer against gold answers, as pure functions.

Every scorer takes the prediction and the gold answers (any one of them counts: the best score
is kept). No gold answers means the question is unanswerable: then the text scores follow
SQuAD 2.0 and give 1.0 only to an empty prediction (a refusal must be recognised before scoring).
"""

from __future__ import annotations

import math
import re
import string
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_ASCII_PUNCTUATION = frozenset(string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD-style: lowercase, drop punctuation (ASCII and Unicode) and the articles a/an/the,
    collapse whitespace. Punctuation is removed, not spaced: "1,234" → "1234"."""
    lowered = text.lower()
    kept = "".join(
        char
        for char in lowered
        if char not in _ASCII_PUNCTUATION and not unicodedata.category(char).startswith("P")
    )
    return " ".join(_ARTICLES.sub(" ", kept).split())


def _tokens(text: str) -> list[str]:
    return normalize_answer(text).split()


def _best(
    prediction: str, golds: Sequence[str], score: Callable[[list[str], list[str]], float]
) -> float:
    predicted = _tokens(prediction)
    return max(score(predicted, _tokens(gold)) for gold in (golds or [""]))


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 when the normalized prediction equals a normalized gold answer."""
    return _best(prediction, golds, lambda predicted, gold: float(predicted == gold))


def _f1(predicted: list[str], gold: list[str]) -> float:
    if not predicted or not gold:
        return float(predicted == gold)
    same = sum((Counter(predicted) & Counter(gold)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(predicted), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, golds: Sequence[str]) -> float:
    """SQuAD token F1: harmonic mean of token precision and recall (tokens counted with
    multiplicity), best over the gold answers."""
    return _best(prediction, golds, _f1)


def _recall(predicted: list[str], gold: list[str]) -> float:
    if not predicted or not gold:
        return float(predicted == gold)
    return sum((Counter(predicted) & Counter(gold)).values()) / len(gold)


def token_recall(prediction: str, golds: Sequence[str]) -> float:
    """Share of a gold answer's tokens found in the prediction (SlideVQA style): a long,
    correct answer is not punished for its extra words. Best over the gold answers."""
    return _best(prediction, golds, _recall)


# --- numbers -----------------------------------------------------------------------------------

_SCALES = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "k": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "b": 1e9,
    "bn": 1e9,
}
_NUMBER = re.compile(
    r"""
    (?<![\w.])                               # not inside a word or another number
    (?P<open>\(\s*)?
    (?P<sign>[-−+])?
    (?:[$€£¥]\s*)?
    (?P<sign_after_currency>[-−])?
    (?P<digits>\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)? | \d+(?:\.\d+)? | \.\d+)
    (?:\s*(?:%|percent\b|per\ cent\b))?
    (?P<close>\s*\))?
    (?: \s*(?P<word>(?i:thousand|million|billion|trillion))\b
      | (?P<short>K|M|B|k|bn|mn|Bn|BN|MN|Mn)\b )?
    (?!(?<=\d)[A-WYZa-wyz])                  # digits glued to letters name a thing: 5G, 3rd
    """,
    re.VERBOSE,
)


def numbers_in(text: str) -> list[float]:
    """Every number written in `text`, in order, as floats.

    Understood: thousands separators ("1,234.5"), a leading sign or the Unicode minus ("−5"),
    accounting negatives ("(1,234)" → -1234), currency signs ("$3.2" → 3.2), percentages
    ("12%" → 12, the number as written), and scale words or suffixes written after the number
    ("3.2 million", "$4bn", "5K" → 3.2e6, 4e9, 5e3). Digits inside words ("FY2018", "A320")
    or glued to letters after them ("5G", "3rd") are not numbers; a multiple ("1.5x") is.
    """
    numbers: list[float] = []
    for match in _NUMBER.finditer(text):
        value = float(match["digits"].replace(",", ""))
        if match["sign"] in ("-", "−") or match["sign_after_currency"]:
            value = -value
        if match["open"] and match["close"]:
            value = -abs(value)
        scale = match["word"] or match["short"]
        if scale:
            value *= _SCALES[scale.lower()]
        numbers.append(value)
    return numbers


# A prediction may give the same quantity in another unit: a fraction for a percentage (×100)
# or thousands/millions/billions for units (×1e3, ×1e6, ×1e9) — "$1,577 million" for "1577".
_UNIT_FACTORS = (1.0, 100.0, 1e3, 1e6, 1e9)


def numeric_match(
    prediction: str, golds: Sequence[str], rel_tol: float = 0.01, *, ignore_sign: bool = True
) -> float | None:
    """1.0 when any number in the prediction equals any number in a gold answer, else 0.0;
    None when no gold answer holds a number (the metric does not apply).

    Two numbers are equal within `rel_tol` (relative), also when one is the other times 100
    (a percentage written as a fraction) or times 1e3, 1e6 or 1e9 (the same digits in another
    unit). Signs are ignored by default, since answers write a negative change in words
    ("a decrease of 12.6" for -12.6). Every number of a long gold answer counts, years included:
    prefer it for short numeric golds.
    """
    gold_numbers = [number for gold in golds for number in numbers_in(gold)]
    if not gold_numbers:
        return None
    for predicted in numbers_in(prediction):
        for gold in gold_numbers:
            if _same_quantity(predicted, gold, rel_tol, ignore_sign):
                return 1.0
    return 0.0


def correct(prediction: str, golds: Sequence[str], rel_tol: float = 0.01) -> float:
    """Whether an answer is right, as one yes/no: for a numeric gold answer, a number of the
    reply equals one of its numbers within `rel_tol` (years left out when the gold has other
    numbers: "FY2018 … 1,577" is about 1,577); otherwise the reply holds at least 80% of a gold
    answer's tokens."""
    if not prediction.strip():
        return 0.0
    every_gold = [n for gold in golds for n in numbers_in(gold)]
    gold_numbers = _without_years(every_gold)
    if gold_numbers:
        # A year asked for ("in which year…") is looked for among the reply's years too.
        asked_year = len(gold_numbers) == len(every_gold) and all(map(_is_year, gold_numbers))
        predicted = numbers_in(prediction) if asked_year else _without_years(numbers_in(prediction))
        if asked_year:  # 2020 is not "within 1%" of 2019; FY19 is 2019
            predicted += [2000.0 + int(short) for short in _SHORT_YEAR.findall(prediction)]
            return 1.0 if set(predicted) & set(gold_numbers) else 0.0
        hit = any(
            _same_quantity(p, g, rel_tol, ignore_sign=True) for p in predicted for g in gold_numbers
        )
        return 1.0 if hit else 0.0
    return 1.0 if token_recall(prediction, golds) >= 0.8 else 0.0


_SHORT_YEAR = re.compile(r"\bFY\s?'?(\d{2})\b", re.IGNORECASE)


def _without_years(numbers: Sequence[float]) -> list[float]:
    """The numbers that are not years (1900–2100, whole); all of them if that leaves none."""
    kept = [n for n in numbers if not _is_year(n)]
    return kept or list(numbers)


def _is_year(number: float) -> bool:
    return number == int(number) and 1900 <= number <= 2100


def _same_quantity(first: float, second: float, rel_tol: float, ignore_sign: bool) -> bool:
    if ignore_sign:
        first, second = abs(first), abs(second)
    for factor in _UNIT_FACTORS:
        if math.isclose(first * factor, second, rel_tol=rel_tol, abs_tol=1e-12):
            return True
        if math.isclose(first, second * factor, rel_tol=rel_tol, abs_tol=1e-12):
            return True
    return False


# --- meaning -----------------------------------------------------------------------------------


def semantic_similarity(
    prediction: str, golds: Sequence[str], embed: Callable[[Sequence[str]], npt.ArrayLike]
) -> float:
    """The highest cosine similarity between the prediction's vector and a gold answer's.

    `embed` turns texts into one vector per row. An empty prediction, no gold answers or a zero
    vector score 0.0.
    """
    if not prediction.strip() or not golds:
        return 0.0
    vectors = np.asarray(embed([prediction, *golds]), dtype=np.float64)
    if vectors.ndim != 2 or vectors.shape[0] != len(golds) + 1:
        raise ValueError(
            f"embed returned shape {vectors.shape} for {len(golds) + 1} texts; "
            "expected one vector per text"
        )
    norms = np.linalg.norm(vectors, axis=1)
    if norms[0] == 0:
        return 0.0
    best = 0.0
    for vector, norm in zip(vectors[1:], norms[1:], strict=True):
        if norm > 0:
            best = max(best, float(vector @ vectors[0]) / float(norm * norms[0]))
    return best


# --- summaries ---------------------------------------------------------------------------------


def mean_std(values: Iterable[float]) -> tuple[float, float]:
    """Mean and population standard deviation; (nan, nan) for no values."""
    data = np.asarray(list(values), dtype=np.float64)
    if data.size == 0:
        return math.nan, math.nan
    return float(data.mean()), float(data.std())


def percentile(values: Iterable[float], q: float) -> float:
    """The q-th percentile (0–100), interpolating linearly between values; nan for no values."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile q must be within 0 and 100, not {q}")
    data = np.asarray(list(values), dtype=np.float64)
    if data.size == 0:
        return math.nan
    return float(np.percentile(data, q))
