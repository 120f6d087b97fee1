"""Answer scores against hand-computed values."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from polyrag.eval.answer_metrics import (
    correct,
    exact_match,
    mean_std,
    normalize_answer,
    numbers_in,
    numeric_match,
    percentile,
    semantic_similarity,
    token_f1,
    token_recall,
)


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("The  Cat sat on a mat.", "cat sat on mat"),
        ("An apple, the pear & an orange!", "apple pear orange"),
        ("Theory of THE anthem", "theory of anthem"),  # articles only as whole words
        ("“Quoted”—and ‘dashed’", "quotedand dashed"),  # Unicode punctuation is dropped too
        ("$1,234.50", "123450"),
        ("", ""),
    ],
)
def test_normalize_answer(text: str, normalized: str) -> None:
    assert normalize_answer(text) == normalized


def test_exact_match_takes_the_best_gold() -> None:
    assert exact_match("the Eiffel Tower!", ["Louvre", "Eiffel tower"]) == 1.0
    assert exact_match("Eiffel", ["Eiffel Tower"]) == 0.0
    assert exact_match("", ["Eiffel Tower"]) == 0.0


def test_token_f1_by_hand() -> None:
    # prediction: [eiffel, tower, in, paris] gold: [eiffel, tower] → P 2/4, R 2/2, F1 = 2/3
    assert token_f1("The Eiffel Tower in Paris", ["Eiffel Tower"]) == pytest.approx(2 / 3)
    # best over golds: against "tower in paris" P 3/4, R 3/3 → 6/7
    assert token_f1("Eiffel Tower in Paris", ["Eiffel Tower", "tower in Paris"]) == pytest.approx(
        6 / 7
    )
    # tokens count with multiplicity: [x x y] vs [x y y] share 2, P = R = 2/3
    assert token_f1("x x y", ["x y y"]) == pytest.approx(2 / 3)
    assert token_f1("nothing shared", ["Eiffel Tower"]) == 0.0
    assert token_f1("", ["Eiffel Tower"]) == 0.0


def test_token_recall_ignores_extra_words() -> None:
    assert token_recall("It is the Eiffel Tower, in Paris", ["Eiffel Tower"]) == 1.0
    assert token_recall("Tower", ["Eiffel Tower", "Big Ben"]) == 0.5
    assert token_recall("y", ["x y y"]) == pytest.approx(1 / 3)
    assert token_recall("", ["Eiffel Tower"]) == 0.0


def test_unanswerable_golds_reward_only_an_empty_prediction() -> None:
    for metric in (exact_match, token_f1, token_recall):
        assert metric("", []) == 1.0
        assert metric("the", []) == 1.0  # only an article: empty once normalized
        assert metric("Paris", []) == 0.0


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("1,234.5", [1234.5]),
        ("a loss of (1,234) and ($56)", [-1234.0, -56.0]),
        ("12% of 40", [12.0, 40.0]),
        ("$3.2 and €.5", [3.2, 0.5]),
        ("3.2 million, 2 Billion and 7 thousand", [3.2e6, 2e9, 7e3]),
        ("$4bn or $3.2M or 5K", [4e9, 3.2e6, 5e3]),
        ("−5 and -$3 and $-2", [-5.0, -3.0, -2.0]),
        ("FY2018 revenue of A320s", []),
        ("5G networks in the 3rd quarter, at 1.5x", [1.5]),  # names, and a multiple
        ("from 2019-2020", [2019.0, 2020.0]),
        ("1,234, then 5.", [1234.0, 5.0]),
        ("no numbers here", []),
        ("", []),
    ],
)
def test_numbers_in(text: str, numbers: list[float]) -> None:
    assert numbers_in(text) == pytest.approx(numbers)


@pytest.mark.parametrize(
    ("prediction", "golds", "expected"),
    [
        ("Capital expenditure was $1,577 million.", ["$1577.00"], 1.0),  # same digits, millions
        ("It was 1,580", ["$1577.00"], 1.0),  # within 1%
        ("It was 1,600", ["$1577.00"], 0.0),  # 1.4% off
        ("The margin is 0.551", ["55.1%"], 1.0),  # a fraction for a percentage
        ("Other fell by 12.6 million", ["-12.6"], 1.0),  # the sign is in words
        ("No figure given", ["$1577.00"], 0.0),
        ("", ["42"], 0.0),
        ("42", ["Paris"], None),  # no gold number: the metric does not apply
        ("42", [], None),
        ("ratio of 3", ["7", "3.0"], 1.0),  # any gold
    ],
)
def test_numeric_match(prediction: str, golds: list[str], expected: float | None) -> None:
    assert numeric_match(prediction, golds) == expected


def test_numeric_match_options() -> None:
    assert numeric_match("-12.6", ["12.6"], ignore_sign=False) == 0.0
    assert numeric_match("-12.6", ["-12.6"], ignore_sign=False) == 1.0
    assert numeric_match("1,600", ["1577"], rel_tol=0.02) == 1.0
    assert numeric_match("0", ["0"]) == 1.0


def fake_embed(texts: Sequence[str]) -> np.ndarray:
    """A vector per text from a fixed table: enough to check the arithmetic."""
    table = {
        "paris": [1.0, 0.0],
        "france's capital": [3.0, 4.0],  # cosine with paris: 0.6
        "lyon": [0.0, 2.0],
        "zero": [0.0, 0.0],
    }
    return np.array([table[text] for text in texts])


@pytest.mark.parametrize(
    ("prediction", "golds", "expected"),
    [
        ("In 2019, the fewest ducks were seen: 120.", ["2019"], 1.0),  # the year asked for
        ("In 2020, the fewest ducks were seen: 120.", ["2019"], 0.0),
        ("FY19 had the higher EBITDA, at $85.1 million.", ["2019"], 1.0),  # a fiscal year
        ("FY20 had the higher EBITDA.", ["2019"], 0.0),
        ("In FY2018 it was 1,577 million.", ["FY2018: 1,577"], 1.0),  # the figure, not the year
        ("In FY2018 it was 1,373 million.", ["FY2018: 1,577"], 0.0),
        ("It was the North Atlantic Conference.", ["the North Atlantic Conference"], 1.0),
        # "5G" names a technology: the words are compared, not the digit.
        ("Sales of carrier products rose by $588 million.", ["carrier", "5G"], 1.0),
        ("", ["2019"], 0.0),
    ],
)
def test_correct(prediction: str, golds: list[str], expected: float) -> None:
    assert correct(prediction, golds) == expected


def test_semantic_similarity_is_the_best_cosine() -> None:
    assert semantic_similarity("paris", ["france's capital"], fake_embed) == pytest.approx(0.6)
    assert semantic_similarity("paris", ["lyon", "france's capital"], fake_embed) == pytest.approx(
        0.6
    )
    assert semantic_similarity("lyon", ["france's capital"], fake_embed) == pytest.approx(0.8)
    assert semantic_similarity("paris", ["paris"], fake_embed) == pytest.approx(1.0)
    assert semantic_similarity("zero", ["paris"], fake_embed) == 0.0
    assert semantic_similarity("paris", ["zero"], fake_embed) == 0.0
    assert semantic_similarity("", ["paris"], fake_embed) == 0.0
    assert semantic_similarity("paris", [], fake_embed) == 0.0


def test_semantic_similarity_rejects_a_wrong_embedder() -> None:
    with pytest.raises(ValueError, match="one vector per text"):
        semantic_similarity("paris", ["lyon"], lambda texts: np.zeros((1, 2)))


def test_mean_std_and_percentile() -> None:
    mean, std = mean_std([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
    assert (mean, std) == (5.0, 2.0)  # population standard deviation
    assert mean_std(iter([3.0])) == (3.0, 0.0)
    assert all(math.isnan(value) for value in mean_std([]))
    values = [1.0, 2.0, 3.0, 4.0]
    assert percentile(values, 50) == 2.5
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 4.0
    assert percentile(values, 95) == pytest.approx(3.85)
    assert math.isnan(percentile([], 50))
    with pytest.raises(ValueError, match="within 0 and 100"):
        percentile(values, 101)
