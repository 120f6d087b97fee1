"""Fusion functions: weighted reciprocal rank fusion and the convex combination."""

from __future__ import annotations

import pytest

from polyrag.retrieve.fusion import convex_fusion, reciprocal_rank_fusion, unit_support


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


def test_convex_scales_each_score_by_its_best() -> None:
    fused = dict(
        convex_fusion(
            [("a", 10.0), ("b", 5.0)],
            {"a": 0.2, "b": 0.4, "c": 0.8},
            keyword_weight=0.3,
            vector_weight=0.7,
        )
    )
    assert fused["a"] == pytest.approx(0.3 * 1.0 + 0.7 * 0.25)
    assert fused["b"] == pytest.approx(0.3 * 0.5 + 0.7 * 0.5)
    assert fused["c"] == pytest.approx(0.7 * 1.0)  # not a keyword hit: 0 there


def test_convex_ranks_best_first_and_weights_are_relative() -> None:
    keyword = [("k", 9.0), ("both", 6.0)]
    similarity = {"k": 0.1, "both": 0.5, "v": 0.6}
    by_keyword = [key for key, _ in convex_fusion(keyword, similarity, 9.0, 1.0)]
    by_vector = [key for key, _ in convex_fusion(keyword, similarity, 1.0, 9.0)]
    assert by_keyword == ["k", "both", "v"]
    assert by_vector == ["v", "both", "k"]  # both: 0.1·6/9 + 0.9·0.5/0.6 < v: 0.9
    assert convex_fusion(keyword, similarity, 3.0, 7.0) == convex_fusion(
        keyword, similarity, 0.3, 0.7
    )


def test_convex_ignores_negative_similarity_and_empty_lists() -> None:
    fused = dict(convex_fusion([], {"x": -0.5, "y": 0.5}, 0.5, 0.5))
    assert fused == {"y": pytest.approx(0.5), "x": 0.0}
    assert convex_fusion([], {}, 1.0, 1.0) == []
    with pytest.raises(ValueError):
        convex_fusion([("a", 1.0)], {}, 0.0, 0.0)


def test_convex_ties_keep_first_seen_order() -> None:
    fused = convex_fusion([("a", 1.0), ("b", 1.0)], {}, 1.0, 0.0)
    assert [key for key, _ in fused] == ["a", "b"]


def test_unit_support_ranks_a_page_that_matches_as_a_whole_first() -> None:
    # A statement page: its title, table and rows each match part of the question; a prose
    # page has one better sentence.
    ranked = [("prose", 0.9), ("title", 0.8), ("table", 0.75), ("rows", 0.7), ("other", 0.6)]
    units = {"prose": "p40", "title": "p60", "table": "p60", "rows": "p60", "other": "p40"}
    supported = unit_support(ranked, units, 0.2)
    assert [key for key, _ in supported][:3] == ["title", "table", "prose"]
    scores = dict(supported)
    assert scores["title"] == pytest.approx(0.8 + 0.2 * (0.75 + 0.7))
    assert scores["table"] == pytest.approx(0.75 + 0.2 * (0.8 + 0.7))
    assert scores["prose"] == pytest.approx(0.9 + 0.2 * 0.6)
    assert scores["other"] == pytest.approx(0.6 + 0.2 * 0.9)


def test_unit_support_keeps_the_order_within_a_unit_and_leaves_others_alone() -> None:
    ranked = [("a", 1.0), ("b", 0.9), ("c", 0.5), ("d", 0.4), ("loose", 0.95)]
    supported = unit_support(ranked, {k: "page" for k in "abcd"} | {"loose": None}, 0.5)
    order = [key for key, _ in supported]
    assert [key for key in order if key != "loose"] == ["a", "b", "c", "d"]
    assert dict(supported)["loose"] == 0.95
    assert dict(supported)["d"] == pytest.approx(0.4 + 0.5 * (1.0 + 0.9))


def test_unit_support_with_weight_zero_or_lone_chunks_changes_nothing() -> None:
    ranked = [("a", 0.9), ("b", 0.8), ("c", 0.8)]
    assert unit_support(ranked, {"a": 1, "b": 1}, 0.0) == ranked
    assert unit_support(ranked, {"a": 1, "b": 2, "c": 3}, 0.3) == ranked
