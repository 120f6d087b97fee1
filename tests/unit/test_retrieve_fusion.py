"""Weighted reciprocal rank fusion."""

from __future__ import annotations

import pytest

from polyrag.retrieve.fusion import reciprocal_rank_fusion


def test_scores_follow_the_formula() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "b"], ["b", "c"]], [1.0, 2.0], rrf_k=10))
    assert fused["a"] == pytest.approx(1 / 11)
    assert fused["b"] == pytest.approx(1 / 12 + 2 / 11)
    assert fused["c"] == pytest.approx(2 / 12)


def test_agreement_beats_a_single_first_place() -> None:
    fused = reciprocal_rank_fusion([["a", "b"], ["c", "b"]], [1.0, 1.0])
    assert [key for key, _ in fused] == ["b", "a", "c"]


def test_disjoint_lists_interleave_by_rank() -> None:
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["x", "y"]], [1.0, 1.0])
    assert [key for key, _ in fused] == ["a", "x", "b", "y", "c"]


def test_ties_prefer_the_first_list_then_order_seen() -> None:
    fused = reciprocal_rank_fusion([["k1", "k2"], ["v1", "v2"]], [1.0, 1.0], rrf_k=60)
    assert fused[0][1] == fused[1][1]
    assert [key for key, _ in fused] == ["k1", "v1", "k2", "v2"]


def test_tie_goes_to_the_better_single_rank() -> None:
    # With rrf_k = 1: x, a and b all score exactly 1/2; b is seen before a but a was ranked 1st.
    fused = reciprocal_rank_fusion([["x", "y", "b"], ["a", "z", "b"]], [1.0, 1.0], rrf_k=1)
    assert [score for _, score in fused[:3]] == [0.5, 0.5, 0.5]
    assert [key for key, _ in fused] == ["x", "a", "b", "y", "z"]


def test_zero_weight_list_is_ignored() -> None:
    fused = reciprocal_rank_fusion([["a", "b"], ["c", "a"]], [0.0, 1.0])
    assert [key for key, _ in fused] == ["c", "a"]
    assert dict(fused)["a"] == pytest.approx(1 / 62)


def test_all_weights_zero_gives_nothing() -> None:
    assert reciprocal_rank_fusion([["a"], ["b"]], [0.0, 0.0]) == []


def test_empty_lists() -> None:
    assert reciprocal_rank_fusion([[], []], [1.0, 1.0]) == []
    assert [key for key, _ in reciprocal_rank_fusion([[], ["a"]], [1.0, 1.0])] == ["a"]


def test_repeated_id_counts_once_at_its_first_rank() -> None:
    fused = dict(reciprocal_rank_fusion([["a", "a", "b"]], [1.0], rrf_k=10))
    assert fused == {"a": pytest.approx(1 / 11), "b": pytest.approx(1 / 13)}


@pytest.mark.parametrize(
    ("weights", "rrf_k"), [([1.0], 60.0), ([1.0, -1.0], 60.0), ([1.0, 1.0], 0.0)]
)
def test_bad_arguments(weights: list[float], rrf_k: float) -> None:
    with pytest.raises(ValueError):
        reciprocal_rank_fusion([["a"], ["b"]], weights, rrf_k)
