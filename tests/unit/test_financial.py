"""Which financial statements a question needs, which pages are those statements, and the
retriever raising those pages."""

from __future__ import annotations

from polyrag.financial import BALANCE, CASH, INCOME, needed_statements, titled_statements
from polyrag.retrieve.hybrid import HybridRetriever, _with_needed_statements_first
from polyrag.settings import RetrieveSettings
from polyrag.types import Chunk, Hit, Locator


def test_a_question_needs_the_statements_it_names_or_its_figures_come_from() -> None:
    assert needed_statements("What is the FY2016 COGS for Microsoft?") == {INCOME}
    assert needed_statements("What is Nike's FY2021 inventory turnover ratio?") == {
        INCOME,
        BALANCE,
    }
    assert needed_statements("Base your judgments on the statement of financial position.") == {
        BALANCE
    }
    assert needed_statements(
        "Among operations, investing, and financing activities, which brought in the most?"
    ) == {CASH}
    assert needed_statements("Who are the primary customers of Boeing?") == set()


def test_a_page_is_a_statement_when_its_title_says_so() -> None:
    assert titled_statements("ITEM 8. INCOME STATEMENTS (In millions)") == {INCOME}
    assert titled_statements("3M Company Consolidated Balance Shee t At December 31") == {BALANCE}
    assert titled_statements("Consolidated Statements of Cash Flows") == {CASH}
    # A discussion headed "Cash Flows" is not the statement
    assert titled_statements("Liquidity — Cash Flows from Financing Activities") == set()
    # Nor is a column of a note that names it, or a summary of its lines
    assert titled_statements("At December 31, 2019 Balance Sheet Classification") == set()
    assert titled_statements("Selected Consolidated Statements of Operations Data") == set()
    # What follows a title on its line: the period, a unit, "continued"
    assert titled_statements(
        "CONSOLIDATED STATEMENTS OF OPERATIONS (Amounts in millions, except per share data)"
    ) == {INCOME}
    assert titled_statements("Consolidated Balance Sheets (continued)") == {BALANCE}
    assert titled_statements(
        "Consolidated Balance Sheets Corning Incorporated and Subsidiary Companies"
    ) == {BALANCE}
    assert titled_statements("Key Balance Sheet Data") == set()
    assert titled_statements(
        "Consolidated Statements of Cash Flows for the years ended December 31"
    ) == {CASH}


def chunk(cid: str, page: int, text: str, heading: tuple[str, ...] = ()) -> Chunk:
    return Chunk(cid, "msft", "/docs/MSFT_10K.pdf", text, Locator(page=page, heading_path=heading))


def test_the_pages_of_the_needed_statement_are_raised() -> None:
    hits = [
        Hit(chunk("md", 35, "Cost of revenue increased due to cloud growth."), 0.9),
        Hit(chunk("rows", 52, "| Total cost of revenue | 32,780 |", ("ITEM 8.",)), 0.7),
        Hit(chunk("title", 52, "ITEM 8.\nINCOME STATEMENTS\n(In millions)"), 0.5),
    ]
    ranked = _with_needed_statements_first(hits, "What is the FY2016 COGS for Microsoft?", 0.3)
    # The rows' page is the income statement's (its title is a chunk of its own): raised by
    # 0.3 it passes the discussion; the title chunk, raised too, stays below it.
    assert [h.chunk.chunk_id for h in ranked] == ["rows", "md", "title"]
    assert [round(h.score, 2) for h in ranked] == [1.0, 0.9, 0.8]
    # A question that needs no statement leaves the order alone.
    assert _with_needed_statements_first(hits, "Who is the CEO?", 0.3) == hits


PROSE = "Our income statements reflect the adoption of the new revenue standard in fiscal 2019."


class TitleStore:
    """Finds statement titles by their words, in the documents it is asked to search."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, tuple[str, ...]]] = []

    def keyword_search(self, query: str, k: int, where: object = None, **_: object) -> list[Hit]:
        sources = tuple(getattr(where, "source_ids", ()) or ())
        self.asked.append((query, sources))
        titles = [
            Chunk("t-msft", "msft", "/docs/MSFT_10K.pdf", "INCOME STATEMENTS\n(In millions)",
                  Locator(page=52)),
            Chunk("t-other", "aapl", "/docs/AAPL_10K.pdf", "CONSOLIDATED STATEMENTS OF OPERATIONS",
                  Locator(page=30)),
            Chunk("prose", "msft", "/docs/MSFT_10K.pdf", PROSE,
                  Locator(page=20)),
        ]  # fmt: skip
        return [Hit(c, 9.0) for c in titles if not sources or c.source_id in sources][:k]


def test_the_needed_statements_pages_join_the_candidates_when_no_search_found_them() -> None:
    store = TitleStore()
    retriever = HybridRetriever(store, None, RetrieveSettings(), parallel=False)  # type: ignore[arg-type]
    hits = [
        Hit(chunk("md", 35, "Operating margin improved as revenue grew."), 0.8),
        Hit(chunk("risk", 12, "Competition may reduce our margins."), 0.6),
    ]
    joined = retriever._with_statement_titles(hits, {INCOME}, None, None)
    # Searched in the documents found only; the title joins at the lowest score, to be raised
    # by statement_match; a passage that merely mentions the statement does not join.
    assert store.asked == [("consolidated statements of income operations earnings", ("msft",))]
    assert [(h.chunk.chunk_id, h.score) for h in joined] == [
        ("md", 0.8),
        ("risk", 0.6),
        ("t-msft", 0.6),
    ]
