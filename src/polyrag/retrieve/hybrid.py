"""Hybrid retrieval: BM25 and vector candidates, fused by score (convex) or by rank (RRF).

The query is embedded first; then the keyword search runs on a worker thread while this thread
runs the vector search. The keyword search is given the query vector, so hits found only by
BM25 carry their cosine similarity too: the answer stage refuses when the best one is weak.
(Overlapping BM25 with the embedding instead was slower on 2 cores: ONNX already uses both.)

Then, in order (each a setting, each measured with `eval qa --retrieval-only`):
- the vector search also runs with the question's keyword form (`variants.py`, in the same
  store query as the question's vector), and with a filter on the pages the question names
  (`pages.py`), counted from the first page, as printed on them, and from the end ("the last
  page", in a search scoped to a few documents); each chunk keeps its best cosine;
- in a library, the vector search and BM25 also run within the one or two files whose names
  the question spells out best (`name_match`, `names.py`: "Best Buy … FY2019" for
  BESTBUY_2019_10K.pdf), so that a named filing's pages are among the candidates;
- a long question weighs BM25 less (`keyword_words`);
- after fusion, a chunk gains from the best other candidates of its page (`page_support`), from
  the share of its file name the question spells out (`name_match`, `names.py`), from being
  on a page the question names (`page_match`) and from being on the page of a financial
  statement the question needs (`statement_match`, `financial.py`: "the FY2016 COGS" needs the
  income statement; a page is that statement's when one of its candidates is titled so).
Hits keep reporting their cosine to the question itself, which is what the refusal gates read.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from pathlib import PurePath
from typing import TypeVar

import numpy as np

from polyrag.errors import ConfigError
from polyrag.financial import STATEMENT_WORDS, needed_statements, titled_statements
from polyrag.index.embed.base import Embedder
from polyrag.index.store.base import Store
from polyrag.months import month_number
from polyrag.retrieve.base import TIMING_KEYS, RetrievalResult, SearchMode
from polyrag.retrieve.fusion import convex_fusion, reciprocal_rank_fusion, unit_support
from polyrag.retrieve.names import name_overlap, question_terms
from polyrag.retrieve.pages import named_pages, pages_from_end
from polyrag.retrieve.variants import (
    keyword_form,
    searched_form,
    without_attribution,
    without_form_names,
)
from polyrag.settings import RetrieveSettings
from polyrag.types import Chunk, Filter, Hit

T = TypeVar("T")

__all__ = ["HybridRetriever", "RetrievalResult", "SearchMode"]


class HybridRetriever:
    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: RetrieveSettings,
        *,
        parallel: bool = True,
    ) -> None:
        if settings.keyword_weight == 0 and settings.vector_weight == 0:
            raise ConfigError("retrieve.keyword_weight and retrieve.vector_weight are both 0")
        self._store = store
        self._embedder = embedder
        self._settings = settings
        # BM25 and the vector searches on named pages run beside the main vector search: the
        # store's loop overlaps them.
        self._pool = ThreadPoolExecutor(3, "polyrag-search") if parallel else None
        self._paths: tuple[int, dict[str, str]] = (-1, {})  # (chunk count, source → path)

    def search(
        self,
        query: str,
        k: int | None = None,
        where: Filter | None = None,
        mode: SearchMode = "hybrid",
        *,
        per_source: bool = False,
        candidates: int | None = None,
    ) -> RetrievalResult:
        """The k best chunks, or with `per_source` the k best sources, each by its best chunk.

        `candidates` (default: settings) is how many chunks each retriever fetches; ranking
        sources needs more of them, since one source can fill a list with its chunks.
        """
        started = time.perf_counter()
        timings = dict.fromkeys(TIMING_KEYS, 0.0)
        k = self._settings.k if k is None else k
        if k <= 0 or not query.strip():
            return RetrievalResult([], timings)
        settings = self._settings
        candidates = max(settings.candidates if candidates is None else candidates, k)
        use_keyword = mode == "keyword" or (mode == "hybrid" and settings.keyword_weight > 0)
        use_vector = mode == "vector" or (mode == "hybrid" and settings.vector_weight > 0)

        pages: tuple[int, ...] = ()
        ends: dict[str, tuple[int, ...]] = {}
        if settings.page_match > 0 and not per_source:
            pages = named_pages(query)
            ends = self._pages_from_end(pages_from_end(query), where)
        files: tuple[str, ...] = ()
        if settings.name_match > 0 and not per_source:
            files = self._named_files(query, where)
        # The words to search for; `query` also names files. Within the document a question
        # names ("According to Nike's fiscal 2021 Form 10-K, …"), the clause naming it says
        # nothing more.
        scoped = where is not None and 0 < len(where.source_ids) <= _NAMED_FILES
        text = without_attribution(query) if files or scoped else query
        text = without_form_names(text)
        form = keyword_form(text)
        queries = [text]
        variant = searched_form(text, settings) if mode != "keyword" else None
        if variant:
            queries.append(variant)
        named = [*_named(where, pages), *_from_end(where, ends), *_within(where, files)]
        query_vector: np.ndarray | None = None
        variant_vectors: list[np.ndarray] = []
        if mode != "keyword":  # hybrid embeds even with vector_weight 0: hits need similarity
            embedded, timings["embed"] = _timed(partial(self._embedder.embed, queries))
            query_vector, *variant_vectors = np.asarray(embedded, dtype=np.float32)
        keyword: list[Hit] = []
        vector: list[Hit] = []
        pending: Future[tuple[list[Hit], float]] | None = None
        if use_keyword:
            search = partial(self._keyword_search, text, candidates, where, query_vector, files)
            if use_vector and self._pool is not None:
                pending = self._pool.submit(_timed, search)
            else:
                keyword, timings["keyword"] = _timed(search)
        if use_vector:
            assert query_vector is not None
            vector, timings["vector"] = _timed(
                partial(
                    self._vector_search, query_vector, variant_vectors, candidates, where, named
                )
            )
        if pending is not None:
            keyword, timings["keyword"] = pending.result()
        # The store returns equal scores in no fixed order (the same table saved as CSV and
        # XLSX has identical chunks): order ties by id, so the same question gets the same hits.
        keyword = _ties_by_id(keyword, "keyword_rank")
        vector = _ties_by_id(vector, "vector_rank")

        fuse_started = time.perf_counter()
        if per_source:
            keyword, vector = _best_per_source(keyword), _best_per_source(vector)
        if mode == "hybrid":
            words = len((form or text).split())
            hits = self._fuse(keyword, vector, per_source, _keyword_weight(words, settings))
        else:
            hits = keyword if mode == "keyword" else vector
        if not per_source and settings.page_support > 0:
            hits = _with_unit_support(hits, settings.page_support)
        if not per_source and settings.name_match > 0:
            hits = _with_named_files_first(hits, query, settings.name_match)
        if pages or ends:
            hits = _with_named_pages_first(hits, pages, ends, settings.page_match)
        if not per_source and settings.entity_match > 0:
            hits = _with_named_entities_first(hits, query, settings.entity_match)
        if not per_source and settings.statement_match > 0:
            needed = needed_statements(query)
            if needed and mode != "vector":
                hits = self._with_statement_titles(hits, needed, where, query_vector, files)
            hits = _with_needed_statements_first(hits, query, settings.statement_match)
        hits = hits[:k]
        now = time.perf_counter()
        timings["fuse"] = (now - fuse_started) * 1000
        timings["total"] = (now - started) * 1000
        return RetrievalResult(hits, timings)

    def _keyword_search(
        self,
        text: str,
        candidates: int,
        where: Filter | None,
        query_vector: np.ndarray | None,
        files: tuple[str, ...],
    ) -> list[Hit]:
        """BM25's best chunks, and those of the files the question names (in a library, a
        named filing's "inventories" lose to every other filing's): each at its BM25 score,
        which the same index makes comparable."""
        search = partial(self._store.keyword_search, text, candidates, vector=query_vector)
        hits = search(where)
        if not files:
            return hits
        best = {hit.chunk.chunk_id: hit for hit in hits}
        for hit in search(_within(where, files)[0]):
            best.setdefault(hit.chunk.chunk_id, hit)
        ranked = sorted(best.values(), key=lambda hit: (-hit.score, hit.chunk.chunk_id))
        return [replace(hit, keyword_rank=rank) for rank, hit in enumerate(ranked, start=1)]

    def _named_files(self, query: str, where: Filter | None) -> tuple[str, ...]:
        """The sources whose file names the question spells out best, when a library has many
        and one or two stand out ("Best Buy … FY2019": BESTBUY_2019_10K.pdf, 2 of 3 parts);
        their chunks are searched for too, so that a named filing is among the candidates
        that `name_match` raises."""
        if where is not None and 0 < len(where.source_ids) <= _NAMED_FILES:
            return ()  # a search over a few files finds each of them anyway
        paths = self._source_paths()
        if where is not None and where.source_ids:
            paths = {source: paths[source] for source in where.source_ids if source in paths}
        if len(paths) <= _NAMED_FILES:
            return ()  # a search over a few files finds each of them anyway
        terms = question_terms(query)
        overlap = {source: name_overlap(terms, path) for source, path in paths.items()}
        best = max(overlap.values())
        if best < _NAMED_SHARE:
            return ()
        named = tuple(sorted(source for source, share in overlap.items() if share == best))
        return named if len(named) <= _NAMED_FILES else ()

    def _source_paths(self) -> dict[str, str]:
        """Source → path, read again when the number of chunks changes."""
        count = self._store.count()
        known, paths = self._paths
        if count != known:
            paths = self._store.source_paths()
            self._paths = (count, paths)
        return paths

    def _vector_search(
        self,
        query_vector: np.ndarray,
        variant_vectors: Sequence[np.ndarray],
        candidates: int,
        where: Filter | None,
        named: Sequence[Filter] = (),
    ) -> list[Hit]:
        """The question's nearest chunks, its variants', and those on the pages it names: each
        chunk at its best cosine to any of them (`score`, which ranks), still reporting its
        cosine to the question. The question and its variants are one search."""
        searches = [
            partial(self._store.vector_search, query_vector, candidates, on_pages)
            for on_pages in named
        ]
        pending = [self._pool.submit(search) for search in searches] if self._pool else []
        hits = self._store.vector_search(query_vector, candidates, where, variants=variant_vectors)
        if not searches:
            return hits
        more = [future.result() for future in pending] if pending else [s() for s in searches]
        best = {hit.chunk.chunk_id: hit for hit in hits}
        for found in more:
            for hit in found:
                known = best.get(hit.chunk.chunk_id)
                if known is None or hit.score > known.score:
                    best[hit.chunk.chunk_id] = hit
        ranked = sorted(best.values(), key=lambda hit: (-hit.score, hit.chunk.chunk_id))
        return [replace(hit, vector_rank=rank) for rank, hit in enumerate(ranked, start=1)]

    def _pages_from_end(
        self, ends: Sequence[int], where: Filter | None
    ) -> dict[str, tuple[int, ...]]:
        """Source → its pages that `ends` count from its end (1: its last page), for a search
        scoped to a few sources: in a whole library "the last page" names none in particular."""
        if not ends or where is None or not 0 < len(where.source_ids) <= _END_SOURCES:
            return {}
        found: dict[str, tuple[int, ...]] = {}
        for source in where.source_ids:
            numbers = [c.locator.page for c in self._store.chunks_of(source) if c.locator.page]
            if numbers:
                last = max(numbers)
                found[source] = tuple(last + 1 - end for end in ends if last + 1 - end >= 1)
        return found

    def _with_statement_titles(
        self,
        hits: list[Hit],
        needed: set[str],
        where: Filter | None,
        query_vector: np.ndarray | None,
        files: tuple[str, ...] = (),
    ) -> list[Hit]:
        """The candidates, and after them the chunks that title the needed statements
        ("CONSOLIDATED STATEMENTS OF INCOME"), found by their words: a long question about a
        margin's trend may share no word with the statement's page, which then never becomes
        a candidate to raise."""
        # Only in the documents the question names or found: in a library, every other
        # filing's statements are titled the same.
        found_in = [hit.chunk.source_id for hit in hits[:_TITLE_SOURCES_FROM]]
        sources = tuple(dict.fromkeys([*files, *found_in]))
        if not sources:
            return hits
        within = replace(where or Filter(), source_ids=sources)
        words = " ".join(STATEMENT_WORDS[name] for name in sorted(needed))
        found = self._store.keyword_search(words, _TITLE_HITS, within, vector=query_vector)
        known = {hit.chunk.chunk_id for hit in hits}
        floor = min((hit.score for hit in hits), default=0.0)
        extra = [
            replace(hit, score=floor, keyword_rank=None)
            for hit in found
            if hit.chunk.chunk_id not in known and _titles(hit.chunk)
        ]
        return hits + extra

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False)

    def _fuse(
        self, keyword: list[Hit], vector: list[Hit], per_source: bool, keyword_weight: float
    ) -> list[Hit]:
        settings = self._settings

        def key(hit: Hit) -> str:
            return hit.chunk.source_id if per_source else hit.chunk.chunk_id

        by_keyword = {key(h): h for h in reversed(keyword)}  # reversed: the first one wins
        by_vector = {key(h): h for h in reversed(vector)}
        if settings.fusion == "rrf":
            fused = reciprocal_rank_fusion(
                [[key(h) for h in keyword], [key(h) for h in vector]],
                [keyword_weight, settings.vector_weight],
                settings.rrf_k,
            )
        else:
            # A vector hit's score is its best cosine to the question or a variant of it; a
            # keyword hit carries its cosine to the question.
            similarity: dict[str, float] = {}
            for hit in keyword:
                if hit.vector_similarity is not None:
                    similarity[key(hit)] = max(
                        similarity.get(key(hit), -1.0), hit.vector_similarity
                    )
            for hit in vector:
                similarity[key(hit)] = max(similarity.get(key(hit), -1.0), hit.score)
            fused = convex_fusion(
                [(key(h), h.score) for h in keyword] if keyword_weight > 0 else [],
                similarity if settings.vector_weight > 0 else {},
                keyword_weight,
                settings.vector_weight,
            )
        hits = []
        for fused_key, score in fused:
            from_keyword, from_vector = by_keyword.get(fused_key), by_vector.get(fused_key)
            found = from_vector or from_keyword
            assert found is not None
            similarities = [
                h.vector_similarity
                for h in (from_keyword, from_vector)
                if h is not None and h.vector_similarity is not None
            ]
            hits.append(
                Hit(
                    chunk=found.chunk,
                    score=score,
                    keyword_rank=from_keyword.keyword_rank if from_keyword else None,
                    vector_rank=from_vector.vector_rank if from_vector else None,
                    vector_similarity=max(similarities, default=None),
                )
            )
        return hits


def _keyword_weight(words: int, settings: RetrieveSettings) -> float:
    """BM25's weight for a question of `words` content words (those of its keyword form): the
    setting, shrunk in proportion when there are more than `keyword_words`."""
    if settings.keyword_words == 0 or words <= settings.keyword_words:
        return settings.keyword_weight
    return settings.keyword_weight * settings.keyword_words / words


def _with_unit_support(hits: list[Hit], weight: float) -> list[Hit]:
    """`hits` reordered by `unit_support`: chunks gain from the best other hits of their page."""
    by_id = {hit.chunk.chunk_id: hit for hit in hits}
    supported = unit_support(
        [(hit.chunk.chunk_id, hit.score) for hit in hits],
        {hit.chunk.chunk_id: _unit(hit.chunk) for hit in hits},
        weight,
    )
    return [replace(by_id[chunk_id], score=score) for chunk_id, score in supported]


def _with_named_files_first(hits: list[Hit], query: str, weight: float) -> list[Hit]:
    """Each hit raised by `weight` × the share of its file's name the question spells out."""
    terms = question_terms(query)
    overlap = {path: name_overlap(terms, path) for path in {hit.chunk.path for hit in hits}}
    if not any(overlap.values()):
        return hits
    return _raised(hits, lambda hit: weight * overlap[hit.chunk.path])


def _named(where: Filter | None, pages: Sequence[int]) -> list[Filter]:
    """Filters for the pages a question names: as physical pages and as printed numbers."""
    if not pages:
        return []
    base = where or Filter()
    physical = _allowed(pages, base)
    printed = [replace(base, printed_pages=tuple(pages))]  # within the pages `where` allows
    return [replace(base, pages=physical), *printed] if physical else printed


def _within(where: Filter | None, files: tuple[str, ...]) -> list[Filter]:
    """A filter for the files a question names, within what `where` allows."""
    return [replace(where or Filter(), source_ids=files)] if files else []


def _from_end(where: Filter | None, ends: dict[str, tuple[int, ...]]) -> list[Filter]:
    """Filters for each source's pages counted from its end, within the pages `where` allows."""
    base = where or Filter()
    filters = []
    for source, pages in ends.items():
        allowed = _allowed(pages, base)
        if allowed:
            filters.append(replace(base, source_ids=(source,), pages=allowed))
    return filters


def _allowed(pages: Sequence[int], where: Filter) -> tuple[int, ...]:
    """The pages among `pages` that `where` lets a search see."""
    return tuple(page for page in pages if not where.pages or page in where.pages)


def _with_named_pages_first(
    hits: list[Hit],
    pages: Sequence[int],
    ends: dict[str, tuple[int, ...]],
    weight: float,
) -> list[Hit]:
    """Hits on the pages the question names raised by `weight`: the pages counted from the
    first, those whose printed number it is ("page 9" of a report with a cover and a contents
    before page 1), and those counted from their document's end ("the last page")."""
    named = set(pages)

    def bonus(hit: Hit) -> float:
        where = hit.chunk.locator
        if where.page in named or where.printed_page in named:
            return weight
        return weight if where.page in ends.get(hit.chunk.source_id, ()) else 0.0

    return _raised(hits, bonus)


_NAMED_FILES = 2  # at most this many files count as named by a question
_NAMED_SHARE = 0.5  # …each with at least this share of its name's parts in the question
_END_SOURCES = 3  # "the last page" is looked for in a search scoped to at most this many sources
_TITLE_HITS = 10  # chunks searched for by the needed statements' title words
_TITLE_SOURCES_FROM = 5  # the candidates whose documents' statements may join them


def _titles(chunk: Chunk) -> set[str]:
    """The statements a chunk's headings or first lines are titles of (a short line naming
    one: "CONSOLIDATED STATEMENTS OF INCOME", not "Our income statements reflect …"). A unit
    in parentheses does not count towards the length: "ACTIVISION BLIZZARD, INC. AND
    SUBSIDIARIES CONSOLIDATED BALANCE SHEETS (Amounts in millions, except share data)"."""
    lines = [*chunk.locator.heading_path, *chunk.text.split("\n", 3)[:3]]
    found: set[str] = set()
    for line in lines:
        if len(_PARENTHESES.sub(" ", line).split()) <= _TITLE_WORDS:
            found |= titled_statements(line)
    return found


_TITLE_WORDS = 12
_PARENTHESES = re.compile(r"\([^)]*\)?")


def _with_needed_statements_first(hits: list[Hit], query: str, weight: float) -> list[Hit]:
    """Hits on the pages of the statements the question needs raised by `weight`. A page is a
    statement's when a candidate on it is headed or opens with that statement's title (the
    title line is often a chunk of its own, the rows another)."""
    needed = needed_statements(query)
    if not needed:
        return hits
    titled: dict[tuple[str, int], set[str]] = {}
    for hit in hits:
        chunk = hit.chunk
        if chunk.locator.page is None:
            continue
        titled.setdefault((chunk.source_id, chunk.locator.page), set()).update(_titles(chunk))

    def bonus(hit: Hit) -> float:
        page = hit.chunk.locator.page
        on = titled.get((hit.chunk.source_id, page), set()) if page is not None else set()
        return weight if on & needed else 0.0

    return _raised(hits, bonus)


def _with_named_entities_first(hits: list[Hit], query: str, weight: float) -> list[Hit]:
    """Hits writing every name the question gives that tells candidates apart raised by
    `weight`: "Microsoft Corporation's layoff in San Diego" over a WARN report, whose summary
    table matches "employees affected" and "layoff" in every chunk while the notice's row is
    the one writing the company and the city. A name tells candidates apart when some write
    it and at most half do, and the candidate's file name does not hold it (a library named
    by company: "3M" names its filing, and every page of it is about 3M)."""
    names = entity_names(query)
    if not names or not hits:
        return hits
    texts = [" ".join(hit.chunk.text.lower().split()) for hit in hits]
    telling = [
        name
        for name in names
        if 0 < sum(name in text for text in texts) <= len(texts) // 2
        and not any(name.replace(" ", "") in _stem_of(hit) for hit in hits)
    ]
    if not telling:
        return hits
    writes = {
        hit.chunk.chunk_id
        for hit, text in zip(hits, texts, strict=True)
        if all(name in text for name in telling)
    }
    return _raised(hits, lambda hit: weight if hit.chunk.chunk_id in writes else 0.0)


def _stem_of(hit: Hit) -> str:
    return re.sub(r"[^a-z0-9]", "", PurePath(hit.chunk.path).stem.lower())


# Capitalised words in a row, with initials, hyphens and "&": "Microsoft Corporation", "San
# Diego", "TaylorMade Golf Company", "Velez-Green".
_ENTITY = re.compile(r"\b[A-Z][\w'&.-]*(?:\s+(?:[A-Z][\w'&.-]*|&|(?:of|de|la|du)\b))*")
_NOT_NAMES = frozenset(
    {"what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "was",
     "were", "did", "does", "do", "has", "have", "had", "the", "a", "an", "in", "on", "of",
     "for", "according", "i", "by", "from", "to", "and", "or", "if", "can", "could", "should",
     "would", "will", "please", "give", "list", "name", "tell", "show", "find", "inc", "ltd",
     "llc", "co", "corp", "plc", "form", "item", "note", "notes", "table", "figure", "page",
     "section", "part", "schedule", "exhibit", "chapter", "appendix", "slide", "sheet"}
)  # fmt: skip
# A word written as names are ("Diego", "TaylorMade"), not a code or an acronym ("USD",
# "FY2018", "3M").
_NAME_WORD = re.compile(r"^[A-Z][a-z]+[A-Za-z]*$")
# Where a sentence starts: the question's start, or after its end or a colon.
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+|\n\s*)$")


def entity_names(question: str) -> list[str]:
    """The names of two capitalised words or more a question gives, lower-cased, possessives
    and question words aside: "How many employees did Microsoft Corporation's layoff in San
    Diego affect?" → ["microsoft corporation", "san diego"]. Words opening a sentence are no
    name ("Provide a response"), but what follows a question word is ("Which Best Buy store");
    months, acronyms and figures are none either."""
    names = []
    # "First Transit's San Bernardino notice": two names, the owner's and the place's.
    runs = []
    for found in _ENTITY.finditer(question):
        at = found.start()
        for piece in re.split(r"(['’]s\s+)", found.group(0)):
            if piece and not re.fullmatch(r"['’]s\s+", piece):
                runs.append((at, piece))
            at += len(piece)
    for start, run in runs:
        words = re.sub(r"['’]s\b", "", run).strip(" .'-").split()
        if _SENTENCE_START.search(question[:start]) and (
            not words or words[0].lower() not in _NOT_NAMES
        ):
            continue  # "Provide a response …", "Answer in USD millions": capitalised as a start
        while words and words[0].lower() in _NOT_NAMES:  # "Which Best Buy store …"
            words = words[1:]
        while words and words[-1].strip(".,").lower() in _NOT_NAMES:
            words = words[:-1]
        name = " ".join(words).strip(" .,").lower()
        # Two words written as names are, at least: one capitalised word is as often a term
        # written with a capital ("the Real change in Sales", "Free cashflow").
        titled = {w.strip(".,") for w in words if _NAME_WORD.match(w.strip(".,"))}
        if month_number(name) or len(titled) < 2:  # "Cash & Cash" is one word twice
            continue
        names.append(name)
    return list(dict.fromkeys(names))


def _raised(hits: list[Hit], bonus: Callable[[Hit], float]) -> list[Hit]:
    """Each hit's score plus its bonus, best first; ties keep their order (the sort is stable)."""
    raised = [replace(hit, score=hit.score + bonus(hit)) for hit in hits]
    return sorted(raised, key=lambda hit: -hit.score)


def _unit(chunk: Chunk) -> Hashable | None:
    """The page, slide, sheet or section a chunk belongs to, within its source."""
    where = chunk.locator
    for kind, value in (
        ("page", where.page),
        ("slide", where.slide),
        ("sheet", where.sheet),
        ("section", where.heading_path or None),
    ):
        if value is not None:
            return (chunk.source_id, kind, value)
    return None


def _ties_by_id(hits: list[Hit], rank_field: str) -> list[Hit]:
    """Best score first, equal scores by chunk id, ranks renumbered to match."""
    ordered = sorted(hits, key=lambda hit: (-hit.score, hit.chunk.chunk_id))
    if ordered == hits:
        return hits
    if rank_field == "keyword_rank":
        return [replace(hit, keyword_rank=rank) for rank, hit in enumerate(ordered, start=1)]
    return [replace(hit, vector_rank=rank) for rank, hit in enumerate(ordered, start=1)]


def _best_per_source(hits: list[Hit]) -> list[Hit]:
    """One hit per source: its best-ranked chunk, renumbered as a ranking of sources.

    The source keeps the best cosine similarity any of its chunks in the list had.
    """
    best: dict[str, Hit] = {}
    similarity: dict[str, float] = {}
    for hit in hits:
        source = hit.chunk.source_id
        best.setdefault(source, hit)
        if hit.vector_similarity is not None:
            similarity[source] = max(similarity.get(source, -1.0), hit.vector_similarity)
    out = []
    for rank, (source, hit) in enumerate(best.items(), start=1):
        out.append(
            Hit(
                chunk=hit.chunk,
                score=hit.score,
                keyword_rank=rank if hit.keyword_rank is not None else None,
                vector_rank=rank if hit.vector_rank is not None else None,
                vector_similarity=similarity.get(source),
            )
        )
    return out


def _timed(call: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = call()
    return result, (time.perf_counter() - started) * 1000
