"""HybridRetriever over a real LanceStore, with a scripted embedder (the store is what matters)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from polyrag.errors import ConfigError
from polyrag.index.store.lancedb import LanceStore
from polyrag.retrieve.base import TIMING_KEYS
from polyrag.retrieve.hybrid import HybridRetriever, entity_names
from polyrag.settings import RetrieveSettings
from polyrag.types import Chunk, Filter, Hit, Locator, Modality

DIM = 8


def unit(seed: int) -> np.ndarray:
    vector = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return vector / np.linalg.norm(vector)


class ScriptedEmbedder:
    """Known vectors for known texts, a seeded random one otherwise; counts its calls."""

    model_id = "scripted"
    dim = DIM
    max_tokens = 256

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors
        self.calls = 0
        self.seen: list[list[str]] = []  # the texts of each call

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        self.seen.append(list(texts))
        return np.stack([self.vectors.get(t, unit(len(t) + 1000)) for t in texts])


TEXTS = [
    "Invoice 48213 was paid on 12 March.",  # the keyword target
    "Quarterly revenue grew by nine percent.",  # the vector target
    "The warehouse moved to a new building.",
    "Engineers tested the pump for three weeks.",
    "Revenue invoice summary for the board.",  # found by both
]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LanceStore]:
    store = LanceStore(tmp_path / "index", DIM, model="test-random")
    chunks = [
        Chunk(
            chunk_id=f"c{i}",
            source_id="a" if i < 3 else "b",
            path="/doc.pdf",
            text=text,
            locator=Locator(page=i + 1),
            modality=Modality.TABLE if i == 4 else Modality.TEXT,
            ordinal=i,
        )
        for i, text in enumerate(TEXTS)
    ]
    vectors = np.stack([unit(i) for i in range(len(TEXTS))])
    store.replace(chunks, vectors)
    yield store
    store.close()


QUERY = "invoice revenue"


@pytest.fixture
def embedder() -> ScriptedEmbedder:
    # The query vector sits between chunk 1 and chunk 4, far from chunk 0.
    mix = unit(1) + unit(4)
    return ScriptedEmbedder({QUERY: mix / np.linalg.norm(mix)})


def retriever(
    store: LanceStore, embedder: ScriptedEmbedder, **settings: float | str
) -> HybridRetriever:
    return HybridRetriever(store, embedder, RetrieveSettings.model_validate(settings))


def ids(result_hits: Sequence) -> list[str]:
    return [hit.chunk.chunk_id for hit in result_hits]


def test_rrf_puts_agreement_first(store: LanceStore, embedder: ScriptedEmbedder) -> None:
    result = retriever(store, embedder, fusion="rrf", keyword_weight=1, vector_weight=1).search(
        QUERY, k=3
    )
    top = result.hits[0]
    assert top.chunk.chunk_id == "c4"
    assert top.keyword_rank is not None and top.vector_rank is not None
    assert top.score == pytest.approx(1 / (60 + top.keyword_rank) + 1 / (60 + top.vector_rank))
    assert len(result.hits) == 3
    assert set(result.timings_ms) == set(TIMING_KEYS)
    assert result.timings_ms["total"] >= result.timings_ms["vector"] > 0


def test_convex_fusion_uses_scores(store: LanceStore, embedder: ScriptedEmbedder) -> None:
    keyword = retriever(store, embedder).search(QUERY, k=5, mode="keyword").hits
    vector = retriever(store, embedder).search(QUERY, k=5, mode="vector").hits
    result = retriever(store, embedder, keyword_weight=0.3, vector_weight=0.7).search(QUERY, k=5)
    top_bm25 = max(hit.score for hit in keyword)
    top_cos = max(hit.score for hit in vector)
    bm25 = {hit.chunk.chunk_id: hit.score for hit in keyword}
    for hit in result.hits:
        assert hit.vector_similarity is not None
        expected = 0.3 * bm25.get(hit.chunk.chunk_id, 0) / top_bm25 + 0.7 * max(
            hit.vector_similarity, 0
        ) / max(top_cos, hit.vector_similarity)
        assert hit.score == pytest.approx(expected, rel=1e-5)
    assert [hit.score for hit in result.hits] == sorted(
        (hit.score for hit in result.hits), reverse=True
    )
    assert result.hits[0].chunk.chunk_id == "c4"  # found by both


def test_per_source_ranks_sources_by_their_best_chunk(
    store: LanceStore, embedder: ScriptedEmbedder
) -> None:
    chunks = retriever(store, embedder).search(QUERY, k=5)
    for mode in ("hybrid", "keyword", "vector"):
        sources = retriever(store, embedder).search(QUERY, k=5, mode=mode, per_source=True)
        assert len({hit.chunk.source_id for hit in sources.hits}) == len(sources.hits)
        if mode == "hybrid":
            assert [hit.chunk.source_id for hit in sources.hits] == list(
                dict.fromkeys(hit.chunk.source_id for hit in chunks.hits)
            )
        ranks = [hit.keyword_rank if mode == "keyword" else hit.vector_rank for hit in sources.hits]
        assert mode == "hybrid" or ranks == list(range(1, len(sources.hits) + 1))


def test_keyword_only_hits_get_their_similarity(
    store: LanceStore, embedder: ScriptedEmbedder
) -> None:
    # The query vector points away from chunk 0, so only BM25 finds chunk 0 ("48213").
    embedder.vectors["invoice 48213"] = -unit(0)
    result = retriever(store, embedder, candidates=3).search("invoice 48213", k=3)
    [hit] = [hit for hit in result.hits if hit.chunk.chunk_id == "c0"]
    assert hit.keyword_rank == 1 and hit.vector_rank is None
    assert hit.vector_similarity == pytest.approx(-1.0, abs=1e-5)
    assert all(hit.vector_similarity is not None for hit in result.hits)


def test_keyword_mode_does_not_embed(store: LanceStore, embedder: ScriptedEmbedder) -> None:
    result = retriever(store, embedder).search("48213", mode="keyword")
    assert ids(result.hits) == ["c0"]
    assert result.hits[0].keyword_rank == 1 and result.hits[0].vector_rank is None
    assert embedder.calls == 0
    assert result.timings_ms["embed"] == 0 and result.timings_ms["vector"] == 0


def test_vector_mode_returns_cosines(store: LanceStore, embedder: ScriptedEmbedder) -> None:
    result = retriever(store, embedder).search(QUERY, k=2, mode="vector")
    assert set(ids(result.hits)) == {"c1", "c4"}
    assert all(hit.score == hit.vector_similarity for hit in result.hits)
    assert result.timings_ms["keyword"] == 0


def test_filter_applies_to_both_lists(store: LanceStore, embedder: ScriptedEmbedder) -> None:
    result = retriever(store, embedder).search(QUERY, k=5, where=Filter(source_ids=("a",)))
    assert result.hits and {hit.chunk.source_id for hit in result.hits} == {"a"}
    tables = retriever(store, embedder).search(QUERY, where=Filter(modalities=(Modality.TABLE,)))
    assert ids(tables.hits) == ["c4"]


def test_k_defaults_to_settings(store: LanceStore, embedder: ScriptedEmbedder) -> None:
    assert len(retriever(store, embedder, k=2).search(QUERY).hits) == 2
    assert len(retriever(store, embedder, k=2).search(QUERY, k=4).hits) == 4


def test_zero_keyword_weight_skips_bm25(store: LanceStore, embedder: ScriptedEmbedder) -> None:
    result = retriever(store, embedder, keyword_weight=0).search(QUERY, k=3)
    assert all(hit.keyword_rank is None for hit in result.hits)
    assert result.timings_ms["keyword"] == 0


def test_both_weights_zero_is_a_config_error(store: LanceStore, embedder: ScriptedEmbedder) -> None:
    with pytest.raises(ConfigError):
        retriever(store, embedder, keyword_weight=0, vector_weight=0)


def test_parallel_and_sequential_agree(store: LanceStore, embedder: ScriptedEmbedder) -> None:
    settings = RetrieveSettings()
    parallel = HybridRetriever(store, embedder, settings).search(QUERY)
    sequential = HybridRetriever(store, embedder, settings, parallel=False).search(QUERY)
    assert parallel.hits == sequential.hits


def test_empty_store_and_blank_query(tmp_path: Path, embedder: ScriptedEmbedder) -> None:
    empty = LanceStore(tmp_path / "empty", DIM, model="test-random")
    try:
        assert retriever(empty, embedder).search(QUERY).hits == []
        assert retriever(empty, embedder).search("   ").hits == []
    finally:
        empty.close()


def test_zero_vector_weight_still_gives_similarity(
    store: LanceStore, embedder: ScriptedEmbedder
) -> None:
    result = retriever(store, embedder, vector_weight=0).search(QUERY, k=3)
    assert result.hits and all(hit.vector_rank is None for hit in result.hits)
    assert all(hit.vector_similarity is not None for hit in result.hits)
    assert result.timings_ms["vector"] == 0 and embedder.calls == 1


def test_the_keyword_form_searches_too_and_similarity_stays_the_questions(
    store: LanceStore, embedder: ScriptedEmbedder
) -> None:
    # The question's vector is the warehouse chunk's (c2); its keyword form's is the pump's (c3).
    question = "Where was the pump tested by the engineers?"
    embedder.vectors[question] = unit(2)
    embedder.vectors["pump tested engineers"] = unit(3)
    with_form = retriever(store, embedder).search(question, k=2, mode="vector")
    assert embedder.calls == 1  # both forms in one embedding call
    assert set(ids(with_form.hits)) == {"c2", "c3"}
    [pump] = [hit for hit in with_form.hits if hit.chunk.chunk_id == "c3"]
    assert pump.score == pytest.approx(1.0, abs=1e-5)  # ranked by the keyword form
    assert pump.vector_similarity == pytest.approx(float(unit(2) @ unit(3)), abs=1e-5)
    assert [hit.vector_rank for hit in with_form.hits] == [1, 2]

    without = retriever(store, embedder, keyword_variant=False).search(question, mode="vector")
    [pump] = [hit for hit in without.hits if hit.chunk.chunk_id == "c3"]
    assert pump.score == pytest.approx(float(unit(2) @ unit(3)), abs=1e-5)
    # In hybrid search the fused score uses the better similarity, the hit reports the question's.
    fused = retriever(store, embedder, keyword_weight=0).search(question, k=2)
    assert set(ids(fused.hits)) == {"c2", "c3"}
    similarities = sorted(hit.vector_similarity or 0.0 for hit in fused.hits)
    assert similarities == pytest.approx(sorted([1.0, float(unit(2) @ unit(3))]), abs=1e-5)


def test_a_keyword_form_that_drops_little_is_not_searched(
    store: LanceStore, embedder: ScriptedEmbedder
) -> None:
    # "Engineers tested the pump" loses one word of four: the form's vector would be nearly
    # the question's. Scripted apart here, so a search with it would show.
    question = "Engineers tested the pump"
    embedder.vectors[question] = unit(2)
    embedder.vectors["Engineers tested pump"] = unit(3)
    hits = retriever(store, embedder).search(question, k=2, mode="vector").hits
    assert embedder.seen == [[question]]
    assert all(hit.score == hit.vector_similarity for hit in hits)
    # A lower bar lets it through.
    retriever(store, embedder, keyword_variant_share=0.2).search(question, k=2, mode="vector")
    assert embedder.seen[-1] == [question, "Engineers tested pump"]


def _at_cosine(cosine: float, axis: int) -> np.ndarray:
    """A unit vector at `cosine` to the first axis, the rest of it along `axis`."""
    vector = np.zeros(DIM, dtype=np.float32)
    vector[0], vector[axis] = cosine, (1 - cosine**2) ** 0.5
    return vector


def test_a_page_that_matches_as_a_whole_outranks_one_lucky_chunk(tmp_path: Path) -> None:
    # Page 7 holds a statement's title, table and rows, each fairly close to the question;
    # page 3 has one sentence closer than any of them.
    layout = [("lucky", 3, 0.9), ("title", 7, 0.85), ("table", 7, 0.8), ("rows", 7, 0.8)]
    chunks = [
        Chunk(
            chunk_id=name,
            source_id="report",
            path="/report.pdf",
            text=f"{name} text",
            locator=Locator(page=page),
            ordinal=i,
        )
        for i, (name, page, _) in enumerate(layout)
    ]
    vectors = np.stack([_at_cosine(c, axis=i + 1) for i, (_, _, c) in enumerate(layout)])
    store = LanceStore(tmp_path / "pages", DIM, model="test-random")
    try:
        store.replace(chunks, vectors)
        query = ScriptedEmbedder({"statement": _at_cosine(1.0, axis=1)})
        plain = retriever(store, query, page_support=0).search("statement", mode="vector")
        assert ids(plain.hits)[:2] == ["lucky", "title"]
        supported = retriever(store, query, page_support=0.2).search("statement", mode="vector")
        assert ids(supported.hits)[:3] == ["title", *sorted(["rows", "table"])]
        assert supported.hits[0].score == pytest.approx(0.85 + 0.2 * (0.8 + 0.8), abs=1e-5)
        assert supported.hits[0].vector_similarity == pytest.approx(0.85, abs=1e-5)
        # Ranking sources is untouched by page support.
        [source] = retriever(store, query).search("statement", per_source=True).hits
        assert source.chunk.chunk_id == "lucky"
    finally:
        store.close()


def test_the_file_a_question_names_comes_first(tmp_path: Path) -> None:
    # The same sentence in two years' reports: only the file name tells them apart.
    chunks = [
        Chunk(
            chunk_id=chunk_id,
            source_id=chunk_id,
            path=f"/filings/{name}",
            text="Revenue grew by nine percent.",
            locator=Locator(page=3),
            ordinal=0,
        )
        for chunk_id, name in (("a", "ACME_2023_10K.pdf"), ("b", "ACME_2019_10K.pdf"))
    ]
    store = LanceStore(tmp_path / "names", DIM, model="test-random")
    try:
        store.replace(chunks, np.stack([unit(7), unit(7)]))
        question = "How much did revenue grow at ACME in FY2019?"
        embedder = ScriptedEmbedder({question: unit(7)})
        plain = retriever(store, embedder, name_match=0).search(question)
        assert ids(plain.hits) == ["a", "b"]  # equal scores: by id
        named = retriever(store, embedder, name_match=0.3).search(question)
        assert ids(named.hits) == ["b", "a"]
        assert named.hits[0].score - named.hits[1].score == pytest.approx(0.3 * (2 / 3 - 1 / 3))
    finally:
        store.close()


def test_a_chunk_writing_the_names_the_question_gives_comes_first(tmp_path: Path) -> None:
    """A summary table matches "employees affected" and "layoff" in every chunk; the notice's
    row is the one writing "Microsoft Corporation" and "San Diego", and comes first."""
    texts = {
        "s1": "Summary by Month: employees affected 2,839, permanent layoff 38",
        "s2": "Summary by Month: employees affected 6,617, permanent layoff 52",
        "s3": "Summary by Month: employees affected 4,864, permanent layoff 61",
        "row": "WARN Report: Company is Microsoft Corporation, City is San Diego, No. Of is 129",
    }
    chunks = [
        Chunk(chunk_id=k, source_id="warn", path="/warn-report.pdf", text=t, locator=Locator())
        for k, t in texts.items()
    ]
    store = LanceStore(tmp_path / "entities", DIM, model="test-random")
    try:
        cosines = {"s1": 0.9, "s2": 0.88, "s3": 0.86, "row": 0.7}
        store.replace(chunks, np.stack([_at_cosine(cosines[k], axis=1) for k in texts]))
        question = "How many employees did Microsoft Corporation's layoff in San Diego affect?"
        embedder = ScriptedEmbedder({question: _at_cosine(1.0, axis=1)})
        plain = retriever(store, embedder, entity_match=0).search(question, mode="vector")
        assert ids(plain.hits)[0] == "s1"
        named = retriever(store, embedder, entity_match=0.3).search(question, mode="vector")
        assert ids(named.hits)[0] == "row"
        assert entity_names(question) == ["microsoft corporation", "san diego"]
        owner = "How many did First Transit's San Bernardino notice affect? Answer in full."
        assert entity_names(owner) == ["first transit", "san bernardino"]  # not "Answer in"
        # A question word opening the question is no part of the name that follows it.
        assert entity_names("Which Best Buy store in Saint Paul closed?") == [
            "best buy",
            "saint paul",
        ]
        assert entity_names("Did General Motors report it? Provide a response.") == [
            "general motors"
        ]
        # A name most candidates write tells none apart, nor does the file's own name.
        for asked in (
            "How many employees did the Summary by Month show?",
            "How many employees does the Warn Report show?",
        ):
            same = ScriptedEmbedder({asked: _at_cosine(1.0, axis=1)})
            assert ids(retriever(store, same).search(asked, mode="vector").hits)[0] == "s1"
    finally:
        store.close()


def test_the_file_a_question_names_is_searched_in_a_library(tmp_path: Path) -> None:
    """Four filings say it more like the question than the one it names: the named filing is
    searched too, and comes first."""
    names = ["ACME_2023_10K", "BETA_2019_10K", "GAMMA_2021_10K", "DELTA_2020_10K", "ACME_2019_10K"]
    chunks = [
        Chunk(
            chunk_id=f"c{i}",
            source_id=name,
            path=f"/filings/{name}.pdf",
            text="Inventories were 1,200 at year end.",
            locator=Locator(page=3),
            ordinal=0,
        )
        for i, name in enumerate(names)
    ]
    near = unit(7) + 0.5 * unit(8)  # the named filing's chunk: close, not closest
    vectors = np.stack([unit(7)] * 4 + [near / np.linalg.norm(near)])
    store = LanceStore(tmp_path / "library", DIM, model="test-random")
    try:
        store.replace(chunks, vectors)
        question = "What were ACME's inventories in FY2019?"
        keywords = "ACME's inventories FY2019"  # the question's keyword form, searched too
        embedder = ScriptedEmbedder({question: unit(7), keywords: unit(7)})
        narrow = {"k": 3, "candidates": 3, "keyword_weight": 0}
        plain = retriever(store, embedder, name_match=0, **narrow).search(question)
        assert "c4" not in ids(plain.hits)
        named = retriever(store, embedder, name_match=0.3, **narrow).search(question)
        assert ids(named.hits)[0] == "c4"
        # Scoped to two files, nothing else is searched: both are searched anyway.
        where = Filter(source_ids=("ACME_2023_10K", "BETA_2019_10K"))
        scoped = retriever(store, embedder, name_match=0.3, **narrow).search(question, where=where)
        assert set(ids(scoped.hits)) == {"c0", "c1"}
    finally:
        store.close()


def test_a_page_the_question_names_is_searched_and_comes_first(
    store: LanceStore, embedder: ScriptedEmbedder
) -> None:
    # The question's vector is chunk 1's (page 2); chunk 2 sits on page 3.
    question = "What does page 3 say?"
    embedder.vectors[question] = unit(1)
    named = retriever(store, embedder, candidates=1).search(question, k=1)
    assert ids(named.hits) == ["c2"]  # found by the page search: 1 candidate would be c1
    assert named.hits[0].vector_similarity == pytest.approx(float(unit(1) @ unit(2)), abs=1e-5)
    plain = retriever(store, embedder, candidates=1, page_match=0).search(question, k=1)
    assert ids(plain.hits) == ["c1"]
    # A filter that excludes the page wins over the question.
    elsewhere = retriever(store, embedder).search(question, where=Filter(pages=(1, 2)))
    assert {hit.chunk.locator.page for hit in elsewhere.hits} <= {1, 2}


def test_a_page_named_by_its_printed_number_is_searched_and_comes_first(tmp_path: Path) -> None:
    # A report with a cover and a contents: its fourth page is printed "2", its second is not.
    store = LanceStore(tmp_path / "printed", DIM, model="test-random")
    printed = {3: 1, 4: 2}
    chunks = [
        Chunk(
            chunk_id=f"p{page}",
            source_id="report",
            path="/report.pdf",
            text=f"Passage {page}.",
            locator=Locator(page=page, printed_page=printed.get(page)),
            ordinal=page,
        )
        for page in range(1, 6)
    ]
    store.replace(chunks, np.stack([unit(page) for page in range(1, 6)]))
    try:
        question = "What does page 2 say?"
        embedder = ScriptedEmbedder({question: unit(5)})  # closest to the fifth page
        found = retriever(store, embedder, candidates=1).search(question, k=3)
        # Both readings of "page 2" come first.
        assert set(ids(found.hits)[:2]) == {"p2", "p4"}
        assert {hit.chunk.locator.describe() for hit in found.hits[:2]} == {
            "page 2",
            "page 4 (printed 2)",
        }
        plain = retriever(store, embedder, candidates=1, page_match=0).search(question, k=1)
        assert ids(plain.hits) == ["p5"]
        # A filter on physical pages still holds: page 4 is printed 2 but is not allowed.
        within = retriever(store, embedder).search(question, where=Filter(pages=(1, 2, 5)))
        assert "p4" not in ids(within.hits)
    finally:
        store.close()


def test_the_last_pages_of_the_documents_searched_are_found(tmp_path: Path) -> None:
    store = LanceStore(tmp_path / "ends", DIM, model="test-random")
    chunks = [
        Chunk(
            chunk_id=f"{source}{page}",
            source_id=source,
            path=f"/{source}.pdf",
            text=f"Passage {page}.",
            locator=Locator(page=page),
            ordinal=page,
        )
        for source, pages in (("a", 5), ("b", 3))
        for page in range(1, pages + 1)
    ]
    store.replace(chunks, np.stack([unit(i) for i in range(len(chunks))]))
    try:
        question = "Is there a signature on the second last page?"
        embedder = ScriptedEmbedder({question: unit(0)})  # closest to a's first page
        both = Filter(source_ids=("a", "b"))
        found = retriever(store, embedder, candidates=1).search(question, k=2, where=both)
        assert set(ids(found.hits)) == {"a4", "b2"}
        assert ids(
            retriever(store, embedder, candidates=1, page_match=0)
            .search(question, k=1, where=both)
            .hits
        ) == ["a1"]
        # In a whole library "the last page" names no page in particular.
        assert ids(retriever(store, embedder, candidates=1).search(question, k=1).hits) == ["a1"]
    finally:
        store.close()


def test_a_long_question_weighs_bm25_less(store: LanceStore, embedder: ScriptedEmbedder) -> None:
    question = (
        "invoice revenue summary board payment march quarterly growth warehouse building "
        "engineers pump weeks nine percent paid"
    )  # 16 content words: BM25 weighs 0.3 × 8 / 16
    embedder.vectors[question] = embedder.vectors[QUERY]
    keyword = retriever(store, embedder).search(question, k=5, mode="keyword").hits
    vector = retriever(store, embedder).search(question, k=5, mode="vector").hits
    top_bm25, top_cos = max(h.score for h in keyword), max(h.score for h in vector)
    bm25 = {hit.chunk.chunk_id: hit.score for hit in keyword}

    def fused(weight: float, hit: Hit) -> float:
        assert hit.vector_similarity is not None
        cosine = max(hit.vector_similarity, 0) / top_cos
        return weight * bm25.get(hit.chunk.chunk_id, 0) / top_bm25 + (1 - weight) * cosine

    settings = {"keyword_weight": 0.3, "vector_weight": 0.7, "page_support": 0}
    for hit in retriever(store, embedder, **settings).search(question, k=5).hits:
        assert hit.score == pytest.approx(fused(0.15 / 0.85, hit), rel=1e-5)
    fixed = retriever(store, embedder, keyword_words=0, **settings).search(question, k=5)
    for hit in fixed.hits:
        assert hit.score == pytest.approx(fused(0.3, hit), rel=1e-5)


def test_a_form_name_chooses_the_filing_but_is_not_searched_for(tmp_path: Path) -> None:
    # An exhibit index names the form on every line; the answer never does.
    texts = {
        "exhibits": "10.1 Employee plan, incorporated by reference to the Form 10-K filed in 2019. "
        "10.2 Employee equity plan, incorporated by reference to Form 10-K exhibit 10.",
        "people": "Each of our 61,200 full- and part-time employees makes a contribution.",
    }
    chunks = [
        Chunk(chunk_id, chunk_id, f"/filings/{name}", texts[chunk_id], Locator(page=9), ordinal=0)
        for chunk_id, name in (("exhibits", "ACME_2021_10K.pdf"), ("people", "ACME_2021_10K.pdf"))
    ]
    store = LanceStore(tmp_path / "forms", DIM, model="test-random")
    try:
        store.replace(chunks, np.stack([unit(3), unit(4)]))
        question = "How many employees did ACME report in its 2021 Form 10-K?"
        embedder = ScriptedEmbedder({})
        found = retriever(store, embedder, vector_weight=0, name_match=0.3).search(question)
        assert ids(found.hits)[0] == "people"
        assert all("10-K" not in text for call in embedder.seen for text in call)
        # The file name still matches: both chunks gained the same bonus from "2021 10-K".
        assert found.hits[0].score > 0.3 * 2 / 3
    finally:
        store.close()


def test_within_the_named_document_the_clause_naming_it_is_not_searched_for(
    tmp_path: Path,
) -> None:
    path = "/filings/ACME_2021_10K.pdf"
    chunks = [
        Chunk("people", "acme", path, "We had 61,200 employees.", Locator(page=9)),
        Chunk("sales", "acme", path, "ACME fiscal 2021 sales.", Locator(page=3)),
    ]
    store = LanceStore(tmp_path / "clause", DIM, model="test-random")
    try:
        store.replace(chunks, np.stack([unit(3), unit(4)]))
        question = "According to ACME's fiscal 2021 Form 10-K, how many employees did it have?"
        embedder = ScriptedEmbedder({})
        within = Filter(source_ids=("acme",))
        found = retriever(store, embedder, vector_weight=0).search(question, where=within)
        assert ids(found.hits)[0] == "people"
        assert embedder.seen[-1][0] == "How many employees did it have?"
        # Over a whole library the clause is what says which filing.
        retriever(store, embedder, vector_weight=0).search(question)
        assert embedder.seen[-1][0].startswith("According to ACME's fiscal 2021")
    finally:
        store.close()
