"""Ranking metrics against hand-computed values, and the BEIR loader on real and broken folders."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from polyrag.errors import ConfigError
from polyrag.eval.beir import BeirDataset
from polyrag.eval.ranking import mrr_at_k, ndcg_at_k, recall_at_k, score_ranking

SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "eval" / "scifact"


def test_ndcg_binary_and_graded() -> None:
    # Relevant at ranks 2 and 3 of two judged: DCG = 1/log2(3) + 1/log2(4); ideal = 1 + 1/log2(3).
    expected = (1 / math.log2(3) + 0.5) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(["x", "a", "b"], {"a": 1, "b": 1}, 10) == pytest.approx(expected)
    assert ndcg_at_k(["a", "b"], {"a": 1, "b": 1}, 10) == pytest.approx(1.0)
    # Graded: the grade is the gain; the better document first is ideal.
    graded = {"a": 2, "b": 1}
    assert ndcg_at_k(["a", "b"], graded, 10) == pytest.approx(1.0)
    swapped = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert ndcg_at_k(["b", "a"], graded, 10) == pytest.approx(swapped)
    # Beyond the cut-off does not count; nothing relevant gives 0.
    assert ndcg_at_k(["x", "a"], {"a": 1}, 1) == 0.0
    assert ndcg_at_k(["a"], {"a": 0}, 10) == 0.0


def test_recall_and_mrr() -> None:
    relevant = {"a": 1, "b": 1, "c": 0}
    assert recall_at_k(["a", "x", "b"], relevant, 2) == 0.5
    assert recall_at_k(["a", "x", "b"], relevant, 3) == 1.0
    assert mrr_at_k(["x", "y", "b"], relevant, 10) == pytest.approx(1 / 3)
    assert mrr_at_k(["c", "x"], relevant, 10) == 0.0  # grade 0 is not relevant
    assert set(score_ranking(["a"], relevant)) == {"ndcg@10", "recall@10", "recall@100", "mrr@10"}


def test_scifact_splits_load() -> None:
    dataset = BeirDataset(SCIFACT)
    assert dataset.splits() == ["test", "train"]
    test = dataset.split("test")
    assert len(test.queries) == 300 and set(test.queries) == set(test.qrels)
    assert all(test.queries[q] for q in test.queries)
    first = next(dataset.documents())
    assert first.doc_id and first.title and first.text


def write_beir(folder: Path, qrels: str) -> Path:
    (folder / "qrels").mkdir(parents=True)
    rows = [{"_id": "d1", "title": "Tea", "text": "Green tea has caffeine."}]
    (folder / "corpus.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "caffeine"}) + "\n")
    (folder / "qrels" / "test.tsv").write_text(qrels)
    return folder


def test_bad_folders_give_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"corpus\.jsonl is missing"):
        BeirDataset(tmp_path)
    dataset = BeirDataset(write_beir(tmp_path / "ok", "query-id\tcorpus-id\tscore\nq1\td1\t1\n"))
    assert dataset.split("test").qrels == {"q1": {"d1": 1}}
    with pytest.raises(ConfigError, match="no split 'dev'"):
        dataset.split("dev")
    bad = BeirDataset(write_beir(tmp_path / "bad", "query-id\tcorpus-id\tscore\nq1\td1\tyes\n"))
    with pytest.raises(ConfigError, match=r"test.tsv:2: score 'yes'"):
        bad.split("test")
    unknown = BeirDataset(write_beir(tmp_path / "unknown", "q9\td1\t1\n"))
    with pytest.raises(ConfigError, match=r"query q9 is not in queries\.jsonl"):
        unknown.split("test")
