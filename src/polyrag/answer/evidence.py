"""Retrieved hits → numbered evidence inside a token budget, and its rendering for the prompt.

A table or picture chunk is shown inside its parent text (the chunk that holds its placeholder,
fetched by its `anchor`), with as much of the text around it as its share of the budget allows;
its citation still points to the table or picture itself.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from polyrag.chunk.figures import figure_pattern, is_pairs, read_row_sentence
from polyrag.chunk.sentences import sentence_spans, split_long
from polyrag.parse.tables import FIGURE_CELL
from polyrag.types import Chunk, Hit, Modality

ParentLookup = Callable[[str, Sequence[int]], Sequence[Chunk]]
"""(source id, ordinals) → those chunks of the source: `Store.chunks_by_ordinal`."""

_FIGURE_TITLE = re.compile(r"^(Table|Picture) (\d+)\b")
_PLACEHOLDER = re.compile(r"\[(?:Table|Picture) \d+(?::[^\]\n]*)?\]")

_WORD = re.compile(r"[\w.%$-]+", re.UNICODE)
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "whose",
        "why",
        "with",
    ]
)


def content_words(text: str) -> set[str]:
    """Lower-case words that carry meaning (stop words and 1-letter words dropped)."""
    words = {w.strip(".-").lower() for w in _WORD.findall(text)}
    return {w for w in words if len(w) > 1 and w not in _STOP}


# The label a form or a record gives what a question asks in other words: "How old was the
# child?" is answered by the line "Age: 1 Year 9 Months", which shares no word with it.
_FIELDS = (
    (re.compile(r"\bhow old\b|\bwhat age\b", re.IGNORECASE), ("age", "aged")),
    (re.compile(r"\bhow long\b", re.IGNORECASE), ("duration", "length")),
    (re.compile(r"\bhow (?:tall|high)\b", re.IGNORECASE), ("height",)),
    (re.compile(r"\bhow far\b", re.IGNORECASE), ("distance",)),
    (re.compile(r"\bhow heavy\b|\bhow much did \w+ weigh\b", re.IGNORECASE), ("weight",)),
    (re.compile(r"^\W*where\b", re.IGNORECASE), ("location", "address")),
    (re.compile(r"^\W*(?:when|on what date)\b", re.IGNORECASE), ("date",)),
)


def field_words(question: str) -> set[str]:
    """The labels under which a form or a record writes what the question asks ("age" for
    "how old", "date" for "when")."""
    return {word for asks, words in _FIELDS if asks.search(question) for word in words}


# A number standing alone in a question ("with 6 g", "in 2019"), not inside a name ("top-20").
_NAMED_NUMBER = re.compile(r"(?<![\w.,/-])\d+(?:[.,]\d+)*(?![\w/-]|[.,]\d)")


_NONE = re.compile(r"\b(?:no|without|zero)\b", re.IGNORECASE)


def named_numbers(question: str, *, none: bool = True) -> set[str]:
    """The numbers a question names, as keys ("#6") that match a table row whose first cell
    holds that number: a row of "6 g" of inhibitor is named by "6", which content words
    drop (one letter) and which every other row's figures do not tell apart. "No" or
    "without" names the row of 0 ("from no inhibitor to 10 g"), unless `none` is off."""
    keys = {"#" + n.replace(",", "") for n in _NAMED_NUMBER.findall(question)}
    if none and _NONE.search(question):  # "from no inhibitor to 10 g": the row of 0
        keys.add("#0")
    return keys


# A name made of a word and a number: "Category 3", "Series 2", "Zone 1", "Code 660".
_NUMBERED_NAME = re.compile(r"\b([A-Za-z][A-Za-z-]*)\s+(\d{1,4})\b(?![.,]\d)")


def numbered_names(text: str) -> set[str]:
    """The names of a word and a number a text gives, lower-cased ("category 3"): content
    words drop the number (one letter), and then "Category 3" names every category's row and
    "Series 2" every series' column alike."""
    return {
        f"{word.lower()} {number}"
        for word, number in _NUMBERED_NAME.findall(text)
        if word.lower() not in _STOP
    }


def row_name(line: str) -> str | None:
    """What names a table row: a row sentence's label, or its first cell's value when it has
    no label ("Dose (g) is 6, …" → "6"), or a Markdown row's first cell; None for any other
    line (a header, a separator, a title)."""
    row = read_row_sentence(line)
    if row is not None:
        return row.label if row.labelled else next((value for _, value in row.pairs()), "")
    if line.startswith("|") and not _SEPARATOR_LINE.match(line):
        return line.strip().strip("|").split("|", 1)[0].strip()
    return None


def row_key(line: str) -> set[str]:
    """The number in a table row's first cell as a key ("#6"), for a row sentence or a
    Markdown row; none when that cell holds words."""
    first = row_name(line)
    if first is None or not _NAMED_NUMBER.fullmatch(first):
        return set()
    return {"#" + first.replace(",", "")}


def stems(text: str, letters: int = 5, *, numbers: bool = True) -> set[str]:
    """The content words cut to their first `letters` letters, a stem crude enough to let
    "decreased" meet "decreasing"; without `numbers`, words that are digits are left out."""
    return {w[:letters] for w in content_words(text) if numbers or not w.isdigit()}


@dataclass(frozen=True)
class Evidence:
    n: int
    chunk: Chunk
    text: str  # what the prompt shows: the chunk, or its most relevant sentences
    context: Chunk | None = None  # the parent text a table or picture is shown inside
    # A tool's result (a calculation, a query's result) is evidence too; `backing` holds the
    # passages or cells it rests on, which its citation points to.
    backing: tuple[Chunk, ...] = ()

    @property
    def derived(self) -> bool:
        return bool(self.backing)


def label(chunk: Chunk) -> str:
    """How a passage is named to the model: its file and place. An attachment or an archive's
    member ("mail.eml#notes.txt") is named with what it came from, so that "the file attached
    to the e-mail" is told apart from the e-mail's own text."""
    where = chunk.locator.describe()
    *containers, own = chunk.path.split("#")
    name = Path(own).name
    if containers:
        name += f" (from {' › '.join(Path(c).name for c in containers)})"
    return f"{name}, {where}" if where else name


def title(chunk: Chunk) -> str:
    """What a passage is about: its document's first heading, else the file's name."""
    path = chunk.locator.heading_path
    return path[0] if path else Path(chunk.path).stem


def render(evidence: Sequence[Evidence]) -> str:
    return "\n\n".join(f"[{e.n}] ({label(e.chunk)})\n{e.text}" for e in evidence)


def select_evidence(
    hits: Sequence[Hit],
    question: str,
    count_tokens: Callable[[str], int],
    budget: int,
    max_items: int = 4,
    min_relative_score: float = 0.0,
    parents: ParentLookup | None = None,
) -> list[Evidence]:
    """The best hits, each within a fair share of the budget, in reading order.

    Hits scoring below `min_relative_score` times the best hit's score are left out: a weak
    extra passage costs prompt time and distracts a small model. Prompt length is answer
    latency on a CPU, so a hit longer than its share keeps only the sentences (or table rows)
    sharing most words with the question; a hit with none is dropped.

    With `parents`, a table or picture hit is shown inside its parent text chunk (a parent that
    was itself retrieved is then not shown twice), and two chunks of one table are shown once.
    A long table (its rows fill several chunks: a financial statement) is shown instead by
    its title and the rows, from all its chunks, whose labels name what the question names
    (`TableRows.best`), and may take `_TABLE_SHARE` tokens when the even share is less.
    """
    chosen: list[Evidence] = []
    left = budget
    terms = (
        content_words(question)
        | named_numbers(question)
        | numbered_names(question)
        | field_words(question)
    )
    candidates: list[Hit] = []
    floor = min_relative_score * max((hit.score for hit in hits), default=0.0)
    for hit in hits:  # the same passage in two files (a CSV and its XLSX) is shown once
        if hit.score < floor:
            continue
        if len(candidates) < max_items and all(
            " ".join(hit.chunk.text.split()) != " ".join(c.chunk.text.split())
            and not _same_figure(hit.chunk, c.chunk)
            for c in candidates
        ):
            candidates.append(hit)
    if parents is not None:
        candidates = _opened(candidates, question, parents)
    # A long table (a statement whose rows fill several chunks) is shown by its rows that
    # name what the question names, gathered from all its chunks, not by the one chunk that
    # ranked: the Markdown header or a block of other rows is often what retrieval found.
    tables = (
        {
            hit.chunk.chunk_id: found
            for hit in candidates
            if (found := table_rows(hit.chunk, parents)) is not None
        }
        if parents is not None
        else {}
    )
    # Two chunks of one long table show the same best rows: the table is shown once, with
    # the room of both (the Gardena notice twice left no room for the Torrance one).
    shares: dict[str, int] = {}
    first_of: dict[tuple[str, str, tuple[int, ...]], str] = {}
    kept: list[Hit] = []
    for hit in candidates:
        found = tables.get(hit.chunk.chunk_id)
        if found is not None:
            key = (hit.chunk.source_id, found.title, tuple(n for n, _, _ in found.rows))
            if key in first_of:
                shares[first_of[key]] += 1
                continue
            first_of[key] = hit.chunk.chunk_id
            shares[hit.chunk.chunk_id] = 1
        kept.append(hit)
    candidates = kept
    whole = [hit for hit in candidates if hit.chunk.chunk_id not in tables]
    contexts = _contexts(whole, parents) if parents is not None else {}
    shown = {(p.source_id, p.ordinal) for p in contexts.values()}
    candidates = [h for h in candidates if (h.chunk.source_id, h.chunk.ordinal) not in shown]
    candidates = in_reading_order(candidates)
    for position, hit in enumerate(candidates):
        share = left // (len(candidates) - position)
        header = count_tokens(f"[{len(chosen) + 1}] ({label(hit.chunk)})\n") + 2
        text = hit.chunk.text
        rows = tables.get(hit.chunk.chunk_id)
        if rows is not None:
            room = min(left, max(share * shares[hit.chunk.chunk_id], _TABLE_SHARE)) - header
            shown_rows = rows.best(terms, count_tokens, room)
            if shown_rows is not None:
                chunk, text = shown_rows
                cost = header + count_tokens(text)
                chosen.append(Evidence(len(chosen) + 1, chunk, text))
                left -= cost
                continue
        parent = contexts.get(hit.chunk.chunk_id)
        if parent is not None:
            text = assemble(hit.chunk, parent, terms, count_tokens, share - header)
        elif hit.chunk.modality is not Modality.TABLE:
            text = entries_first(text, terms)
        else:  # before any cut: a long row keeps the figure under the column asked
            text = rows_first(text, terms)
        cost = header + count_tokens(text)
        if cost > share:
            trim = _best_sentences
            if _markdown_head(text):
                trim = _best_rows
            elif _all_row_sentences(text):
                trim = _best_pairs
            elif _listing(text) is not None:  # "JUL. 15" is no sentence's end
                room = min(left, _TABLE_SHARE) - header
                trim = partial(_first_lines, room=room)
            text = trim(text, terms, count_tokens, share - header)
            if not text:
                continue
            cost = header + count_tokens(text)
        context = parent if parent is not None and text != hit.chunk.text else None
        if context is None and hit.chunk.modality is Modality.TABLE:
            text = rows_first(text, terms)
        chosen.append(Evidence(len(chosen) + 1, hit.chunk, text, context))
        left -= cost
    return chosen


_ROW_LINE = re.compile(r"^(?:Row \d+: |\|)")
# A line ending in an amount: an entry of a listing ("… STAFF ASSISTANT 25,499.96").
AMOUNT_AT_END = re.compile(r"(?<![\w.,])[$€£]?\(?\d{1,3}(?:,\d{3})*(?:\.\d{2})?\)?$")
_HAS_FIGURE = re.compile(r"(?<![\w.])[(-]?[$€£]?\d[\d,]*(?:\.\d+)?\)?%?(?![\w.])")
_TABLE_SHARE = 160  # tokens a long table's rows may take, even when the even share is less
_TABLE_REACH = 40  # chunks before and after a table hit searched for the rest of its table


@dataclass(frozen=True)
class TableRows:
    """Every row of one long table, with the chunk each row was read from."""

    title: str
    rows: tuple[tuple[int, str, Chunk], ...]  # (row number, its sentence, its chunk)

    def best(
        self, terms: set[str], count_tokens: Callable[[str], int], budget: int
    ) -> tuple[Chunk, str] | None:
        """The title and the rows that share the question's rarer words, best first, within
        `budget`; cited as the chunk of the best row, its rows widened to those shown. None
        when no row shares a word with the question."""
        # A row without figures (a section line: "Current assets:") answers nothing.
        labels = [_row_words(text) for _, text, _ in self.rows]
        # The title's words ("3M", "Balance Sheet") are true of every row: they tell none apart.
        asked = terms - content_words(self.title)
        # A word in many rows ("cash", "total") tells them apart less than a rare one.
        weight = rarity([words & asked for words in labels])
        scored = [
            # Among rows matching as well, the one whose label the question says most fully:
            # "total assets" is the row "Total assets" before "Total current assets".
            (sum(weight[w] for w in words & asked), len(words & asked) / len(words), i)
            for i, words in enumerate(labels)
            if words & asked
        ]
        ranked = [i for _, _, i in sorted(scored, key=lambda e: (-e[0], -e[1], e[2]))]
        if not ranked:
            return None
        left = budget - count_tokens(self.title) - 1
        kept: list[int] = []
        for i in ranked:
            cost = count_tokens(self.rows[i][1]) + 1
            if cost <= left:
                kept.append(i)
                left -= cost
        if not kept:
            return None
        numbers = [self.rows[i][0] for i in kept]
        first = self.rows[kept[0]][2]
        cited = replace(first, locator=replace(first.locator, rows=(min(numbers), max(numbers))))
        return cited, "\n".join([self.title, *(self.rows[i][1] for i in kept)])


def rarity(found: Sequence[set[str]]) -> dict[str, float]:
    """Each word's weight among the lines (rows, sentences) it was found in: log(1 + lines /
    lines holding it), so a word in every line counts least."""
    spread: dict[str, int] = {}
    for words in found:
        for word in words:
            spread[word] = spread.get(word, 0) + 1
    return {word: math.log(1 + len(found) / n) for word, n in spread.items()}


def table_rows(chunk: Chunk, lookup: ParentLookup) -> TableRows | None:
    """All rows of the table `chunk` belongs to, when its row sentences fill more than one
    chunk; None for a short table (shown whole, inside its parent text) and for other chunks."""
    if chunk.modality is not Modality.TABLE or _FIGURE_TITLE.match(chunk.text) is None:
        return None
    title = chunk.text.split("\n", 1)[0]
    reach = range(max(0, chunk.ordinal - _TABLE_REACH), chunk.ordinal + _TABLE_REACH + 1)
    rows: dict[int, tuple[int, str, Chunk]] = {}
    pieces = 0
    for near in lookup(chunk.source_id, list(reach)):
        if near.anchor != chunk.anchor or near.text.split("\n", 1)[0] != title:
            continue
        found = [
            (row.number, line)
            for line in near.text.split("\n")[1:]
            if (row := read_row_sentence(line)) is not None
        ]
        pieces += bool(found)
        for number, line in found:
            rows.setdefault(number, (number, line, near))
    if pieces < 2:
        return None
    return TableRows(title, tuple(rows[n] for n in sorted(rows)))


def _row_words(sentence: str) -> set[str]:
    """The content words of a row's label; none for a row that answers nothing: one without
    figures, unless it pairs two or more column names with their words (a table of words:
    "Global variable is CLIENT_PORT, Type is INTEGER" answers which type CLIENT_PORT has)."""
    row = read_row_sentence(sentence)
    if row is None:
        return set()
    if not _HAS_FIGURE.search(row.figures) and (row.labelled or len(row.pairs()) < 2):
        return set()
    return content_words(row.label) | row_key(sentence)


_SEPARATOR_LINE = re.compile(r"^\|?\s*:?-{3,}")


def rows_first(text: str, terms: set[str]) -> str:
    """A table's rows that name what the question names come first, after its title and
    header, and in each row sentence the figures under the columns the question names: a
    small model takes the first matching row, and the first matching figure, it reads."""
    original = text.split("\n")
    lines = [figures_first(line, terms) for line in original]
    rows = [i for i, line in enumerate(lines) if _ROW_LINE.match(line)]
    if not rows:
        return "\n".join(lines)
    head_end = rows[0]
    if lines[rows[0]].startswith("|"):  # a Markdown table: its header and separator stay on top
        head_end = rows[0] + 1
        if head_end < len(lines) and _SEPARATOR_LINE.match(lines[head_end]):
            head_end += 1
    body = [i for i in rows if i >= head_end]
    scored = [(_closeness(terms, _named_by(original[i])), i) for i in body]
    if len({score for score, _ in scored}) <= 1:  # one row, every row named alike, or none
        return "\n".join(lines)
    ordered = sorted(scored, key=lambda pair: pair[0])
    tail = [line for i, line in enumerate(lines) if i >= head_end and i not in set(body)]
    return "\n".join([*lines[:head_end], *(lines[i] for _, i in ordered), *tail])


def _closeness(terms: set[str], named: set[str]) -> tuple[int, int]:
    """How near a row is to the question, smaller first: more of the question's words, then,
    among rows named by the question, fewer words of its own ("Net deferred tax asset" before
    "Net deferred tax asset before valuation allowance", asked for the net deferred tax
    asset). Rows the question does not name keep their order."""
    shared = len(terms & named)
    # A row's figures are no name, nor is a name with a number the question does not give.
    extra = [word for word in named - terms if not word.isdigit() and " " not in word]
    return -shared, len(extra) if shared else 0


def _named_by(line: str) -> set[str]:
    """What a table row is named by: its label's words, or in a row without a label (and in a
    Markdown row) its cells' words, the number in its first cell (`row_key`) and the name of
    a word and a number it starts with ("Category 3", `numbered_names`). Not the
    column names a row sentence repeats: every row says "Saltwater Ducks is …", and the row
    of 2021 was no nearer to "How many saltwater ducks … in 2021?" than the others."""
    row = read_row_sentence(line)
    key = row_key(line) | numbered_names(row_name(line) or "")  # "Category 3"
    if row is None:
        return content_words(line) | key
    if row.labelled:
        return content_words(row.label) | key
    return content_words(" ".join(value for _, value in row.pairs())) | key


def entries_first(text: str, terms: set[str]) -> str:
    """A listing's entries that name what the question names come first, those naming most
    ahead: lines of a payee and an amount each ("ARMER, DEREK A LEGISLATIVE CORRESPONDENT …
    12,111.06"), read from a PDF without ruling. A small model took the amount of the line
    beside the one it was asked about. Only a passage whose every line from the first entry
    on (the last may be cut short) ends in an amount is a listing; the lines above the
    entries stay on top."""
    found = _listing(text)
    if found is None:
        return text
    lines, first, end = found
    whole = lines[first:end]
    scores = [len(terms & content_words(line)) for line in whole]
    best = max(scores)
    if not best or all(score == best for score in scores):
        return text
    # Every entry naming something asked comes before the rest, those naming most first: "How
    # much more was paid to A than to B?" needs B's line too, not only A's fuller match.
    order = sorted(range(len(whole)), key=lambda i: -scores[i])
    named = [whole[i] for i in order if scores[i]]
    others = [line for line, score in zip(whole, scores, strict=True) if not score]
    return "\n".join([*lines[:first], *named, *others, *lines[end:]])


def _listing(text: str) -> tuple[list[str], int, int] | None:
    """A listing's lines (see `entries_first`) with the index of its first entry and the end
    of its whole entries (the last line may be cut short), or None."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if AMOUNT_AT_END.search(line)), None)
    if first is None:
        return None
    end = len(lines) if AMOUNT_AT_END.search(lines[-1]) else len(lines) - 1
    whole = lines[first:end]
    if len(whole) < 3 or not all(AMOUNT_AT_END.search(line) for line in whole):
        return None
    return lines, first, end


def _first_lines(
    text: str, terms: set[str], count_tokens: Callable[[str], int], budget: int, room: int = 0
) -> str:
    """A listing cut to fit: its lines from the top (its named entries come first). The lines
    above its entries and the entries naming what the question names may take `room` when
    that is more than `budget`: "How much more was paid to A than to B?" needs both lines."""
    found = _listing(text)
    lines = text.split("\n")
    needed = 0
    if found is not None:
        _, first, end = found
        needed = first + sum(1 for line in lines[first:end] if terms & content_words(line))
    kept: list[str] = []
    for i, line in enumerate(lines):
        if count_tokens("\n".join([*kept, line])) > (max(budget, room) if i < needed else budget):
            break
        kept.append(line)
    return "\n".join(kept)


def _markdown_head(text: str) -> int:
    """How many lines open a Markdown table — its caption lines, column names and separator —
    or 0 when `text` is no Markdown table."""
    lines = text.split("\n")
    for i, line in enumerate(lines[:-1]):
        if line.startswith("|") and _SEPARATOR_LINE.match(lines[i + 1]):
            return i + 2
        if line.startswith("|"):
            return 0
    return 0


def _best_rows(text: str, terms: set[str], count_tokens: Callable[[str], int], budget: int) -> str:
    """A Markdown table cut to fit: its caption and column names, then the rows sharing most
    words with the question that fit, shown in their order. A row read without its column names
    ("| Operating profit | 7262 | 6619 |") does not say which figure is which year."""
    lines = text.split("\n")
    head = _markdown_head(text)
    left = budget - count_tokens("\n".join(lines[:head]))
    words = {i: content_words(lines[i]) | row_key(lines[i]) for i in range(head, len(lines))}
    shared = {i: len(terms & words[i]) for i in words}
    # Among rows sharing as many words, the one the question says most fully comes first:
    # "operating profit" is the row "Operating profit" before "Trading operating profit".
    ranked = sorted(
        (i for i in shared if shared[i]), key=lambda i: (-shared[i], -shared[i] / len(words[i]))
    )
    keep: list[int] = []
    for i in ranked:
        cost = count_tokens(lines[i]) + 1
        # The best row with the column names is the least that says anything: it may take
        # what a long table's rows may (a five-column header alone passes a third of 320).
        first = not keep and budget - left + cost <= _TABLE_SHARE
        if cost <= left or first:
            keep.append(i)
            left -= cost
    if not keep:
        return ""
    return "\n".join([*lines[:head], *(lines[i] for i in sorted(keep))])


def _all_row_sentences(text: str) -> bool:
    """Whether every line is a row sentence of "Header is value" pairs."""
    rows = [read_row_sentence(line) for line in text.split("\n") if line.strip()]
    return bool(rows) and all(row is not None and not row.labelled for row in rows)


def _best_pairs(text: str, terms: set[str], count_tokens: Callable[[str], int], budget: int) -> str:
    """Row sentences cut to fit pair by pair, never mid-pair: the rows naming most of what the
    question names first, each with the pairs naming the row and as many of its figures as
    fit, those under the columns the question names first; the first row keeps its name and
    one figure even when that passes `budget`. Cut word by word, a row lost its name ("…
    operating profit (b) is -17, Trading operating profit is -17") and the model answered from
    a row of another thing."""
    lines = rows_first(text, terms).split("\n")
    kept: list[str] = []
    left = budget
    for line in lines:
        row = read_row_sentence(line)
        if row is None:
            continue
        pairs = is_pairs(row.figures)
        named = [p for p in pairs if not FIGURE_CELL.match(p.partition(" is ")[2])]
        shown = list(named)
        for pair in (p for p in pairs if p not in named):
            # The best row keeps its name and its first figure whatever the share: it is the
            # least that says anything, and a passage that ranked first is not dropped for it.
            first = not kept and len(shown) == len(named)
            if (
                not first
                and count_tokens(f"Row {row.number}: " + ", ".join([*shown, pair])) + 1 > left
            ):
                break
            shown.append(pair)
        if len(shown) > len(named):  # at least one figure with the row's name
            line = f"Row {row.number}: " + ", ".join(shown)
            kept.append(line)
            left -= count_tokens(line) + 1
    if not kept or not terms & content_words(" ".join(kept)):
        return ""
    return "\n".join(kept)


def figures_first(line: str, terms: set[str]) -> str:
    """A row sentence of "Header is value" pairs with the figures under the columns the
    question names most fully moved up, after the pairs that name the row: "Trading operating
    profit is 2170" before "Underlying Trading operating profit (b) is 2198" for "Zone AOA's
    trading operating profit". In a row without figures, the words under those columns
    after its first pair. Any other line is returned as it is."""
    row = read_row_sentence(line)
    if row is None or row.labelled:
        return line
    pairs = is_pairs(row.figures)
    if any(" is " not in pair for pair in pairs):
        return line
    # Plurals as their singulars: "total background checks" names the column "Totals".
    terms = _singulars(terms)
    named = [
        _singulars(content_words(header)) | (numbered_names(header) & terms)  # "Series 2"
        for header in (pair.partition(" is ")[0] for pair in pairs)
    ]
    figure = [bool(FIGURE_CELL.match(pair.partition(" is ")[2])) for pair in pairs]
    if not any(figure):
        # A row of words ("Brain haemorrhage: Not known, Uncommon, Rare"): after its name,
        # the value under the column the question names comes first.
        figure = [i > 0 for i in range(len(pairs))]
    score = [
        (len(terms & words), len(terms & words) / len(words)) if figure[i] and words else (0, 0.0)
        for i, words in enumerate(named)
    ]
    if not any(s[0] for s in score):
        return line
    order = sorted(range(len(pairs)), key=lambda i: (figure[i], -score[i][0], -score[i][1], i))
    return f"Row {row.number}: " + ", ".join(pairs[i] for i in order)


def _singulars(words: set[str]) -> set[str]:
    return {w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w for w in words}


def assemble(
    figure: Chunk,
    parent: Chunk,
    terms: set[str],
    count_tokens: Callable[[str], int],
    budget: int,
) -> str:
    """The figure's text in its place inside the parent's text, with the parent's sentences
    that fit in `budget`: those sharing words with the question first, then the nearest. A
    table's rows that name what the question names come first (`rows_first`), as they do
    where a table is shown alone."""
    cost = count_tokens(figure.text)
    if cost >= budget:
        return figure.text  # no room for context: the caller trims the figure itself
    shown = rows_first(figure.text, terms) if figure.modality is Modality.TABLE else figure.text
    before, after = _around(figure.text, parent.text)
    separator = "\n" if "\n" in parent.text else " "
    pieces = [(0, text) for text in _sentences(before)]
    pieces += [(1, text) for text in _sentences(after)]
    origin = sum(1 for side, _ in pieces if side == 0)  # where the figure stands
    ranked = sorted(
        range(len(pieces)),
        key=lambda i: (
            -len(terms & content_words(pieces[i][1])),
            origin - i if i < origin else i - origin + 1,
        ),
    )
    left = budget - cost - 1
    keep: set[int] = set()
    for i in ranked:
        piece_cost = count_tokens(pieces[i][1]) + 1
        if piece_cost <= left:
            keep.add(i)
            left -= piece_cost
    head = separator.join(pieces[i][1] for i in range(origin) if i in keep)
    tail = separator.join(pieces[i][1] for i in range(origin, len(pieces)) if i in keep)
    return "\n".join(part for part in (head, shown, tail) if part)


def _around(figure_text: str, parent_text: str) -> tuple[str, str]:
    """The parent's text before and after the figure's placeholder (or its title line and
    Markdown in a slide's chunk); the figure goes last when the parent does not name it."""
    match = _FIGURE_TITLE.match(figure_text)
    found = (
        figure_pattern(match.group(1), int(match.group(2))).search(parent_text) if match else None
    )
    if found is None:
        return parent_text, ""
    end = found.end()
    if not found.group(0).startswith("["):  # a title line: the table's Markdown follows it
        lines = parent_text[end:].split("\n")
        taken = 1
        while taken < len(lines) and lines[taken].lstrip().startswith("|"):
            taken += 1
        end += len("\n".join(lines[:taken]))
    return parent_text[: found.start()], parent_text[end:]


def _sentences(text: str) -> list[str]:
    """The sentences of a parent's text, without other figures' placeholders."""
    out = []
    for a, b in sentence_spans(text, wrapped=True):
        sentence = _PLACEHOLDER.sub("", text[a:b]).strip()
        if sentence:
            out.append(sentence)
    return out


_TABLE_PLACEHOLDER = re.compile(r"\[Table (\d+): ([^\]\n]*)\]")


def _opened(hits: list[Hit], question: str, parents: ParentLookup) -> list[Hit]:
    """Each text hit whose table placeholder names a word the question names ("[Table 3: -,
    Brinell HBW / HB, Rockwell C HRC]" for "What Brinell hardness range…") stands as that
    table's first chunk, which is then shown inside this text as any table hit is: a section
    ranks on its heading and the placeholder, and the rows it stands for answer nothing until
    they are shown. Years and other numbers do not count: a statement's "[Table 5: 2020,
    2019]" says nothing of which rows it holds. A long table (`table_rows`) is shown by its
    rows alone, so the text stays as well, the table after it ("In February 2016, we granted
    547,000 PSUs" was lost behind a table of share counts)."""
    asked = stems(question, numbers=False)
    out: list[Hit] = []
    for hit in hits:
        chunk = hit.chunk
        named = [
            (len(asked & stems(match.group(2), numbers=False)), int(match.group(1)))
            for match in _TABLE_PLACEHOLDER.finditer(chunk.text)
        ]
        best = max(named, key=lambda pair: pair[0], default=(0, 0))
        figure = _table_chunk(chunk, best[1], parents) if chunk.anchor is None and best[0] else None
        shown = figure is not None and any(
            h.chunk.chunk_id == figure.chunk_id or _same_figure(h.chunk, figure) for h in hits
        )
        if figure is None or shown:
            out.append(hit)
        elif table_rows(figure, parents) is None:
            out.append(replace(hit, chunk=figure))  # shown whole, inside this text
        else:  # a long table is shown by its rows alone: this text goes on beside it
            out += [hit, replace(hit, chunk=figure)]
    return out


def _table_chunk(parent: Chunk, number: int, parents: ParentLookup) -> Chunk | None:
    """The first chunk of table `number` whose placeholder stands in `parent`."""
    reach = range(parent.ordinal + 1, parent.ordinal + _TABLE_REACH + 1)
    found = [
        chunk
        for chunk in parents(parent.source_id, list(reach))
        if chunk.anchor == parent.ordinal
        and (match := _FIGURE_TITLE.match(chunk.text)) is not None
        and match.group(0) == f"Table {number}"
    ]
    return min(found, key=lambda chunk: chunk.ordinal, default=None)


def _same_figure(one: Chunk, other: Chunk) -> bool:
    """Two chunks of one table (its Markdown and its rows) or one picture."""
    if one.anchor is None or one.source_id != other.source_id or one.anchor != other.anchor:
        return False
    first, second = _FIGURE_TITLE.match(one.text), _FIGURE_TITLE.match(other.text)
    return first is not None and second is not None and first.group(0) == second.group(0)


def _contexts(hits: Sequence[Hit], parents: ParentLookup) -> dict[str, Chunk]:
    """chunk id → parent chunk for the table and picture hits; each parent is given once."""
    wanted: dict[str, list[int]] = {}
    for hit in hits:
        if hit.chunk.anchor is not None:
            wanted.setdefault(hit.chunk.source_id, []).append(hit.chunk.anchor)
    found: dict[tuple[str, int], Chunk] = {}
    for source_id, ordinals in wanted.items():
        for chunk in parents(source_id, ordinals):
            found[(chunk.source_id, chunk.ordinal)] = chunk
    out: dict[str, Chunk] = {}
    used: set[tuple[str, int]] = set()
    for hit in in_reading_order(hits):
        key = (hit.chunk.source_id, hit.chunk.anchor if hit.chunk.anchor is not None else -1)
        if key in found and key not in used:
            out[hit.chunk.chunk_id] = found[key]
            used.add(key)
    return out


def in_reading_order(hits: Sequence[Hit]) -> list[Hit]:
    """Sources in the order of their best hit; one source's passages in document order.

    A document read in order is easier to follow than fragments ranked by score, for a
    small model as for a person.
    """
    source_rank: dict[str, int] = {}
    for rank, hit in enumerate(hits):
        source_rank.setdefault(hit.chunk.source_id, rank)
    return sorted(hits, key=lambda hit: (source_rank[hit.chunk.source_id], hit.chunk.ordinal))


def _best_sentences(
    text: str, terms: set[str], count_tokens: Callable[[str], int], budget: int
) -> str:
    """The sentences sharing most words with the question that fit, in their original order.

    Among sentences sharing as many words, those between matching sentences come first: the
    sentence that names the thing ("We call the resulting VM TraceMonkey.") often repeats none
    of the question's words, while its neighbours do.
    """
    if budget <= 20:
        return ""
    separator = "\n" if "\n" in text else " "
    sentences: list[str] = []
    # Over-long "sentences" (an info box) become word runs; a line ending in an amount (an
    # entry of a listing, "DHAW20190045 07/10/2019 … STAFF TRANSPORTATION 1,112.00") stays
    # whole when it fits: cut in two, its name and its amount part.
    for a, b in sentence_spans(text, wrapped=True):
        sentence = " ".join(text[a:b].split()) if separator == "\n" else text[a:b]
        cost = count_tokens(sentence)
        entry = separator == "\n" and AMOUNT_AT_END.search(sentence) is not None
        if cost > budget // 2 and not (entry and cost <= budget):
            sentences += [sentence[c:d] for c, d in split_long(sentence, budget // 2, count_tokens)]
        else:
            sentences.append(sentence)
    # A word in many of the sentences ("child" all through a case report) tells them apart
    # less than a rare one ("age", the case's number): each shared word weighs by its rarity.
    words = [terms & content_words(sentence) for sentence in sentences]
    weight = rarity(words)
    shared = [sum(weight[word] for word in found) for found in words]

    def rank(i: int) -> tuple[float, float]:
        before = shared[i - 1] if i > 0 else 0
        after = shared[i + 1] if i + 1 < len(shared) else 0
        return shared[i], min(before, after)

    ranked = sorted(range(len(sentences)), key=rank, reverse=True)
    keep: list[int] = []
    used = 0
    for i in ranked:
        cost = count_tokens(sentences[i]) + 1
        if used + cost <= budget:
            keep.append(i)
            used += cost
    if not keep or not terms & content_words(" ".join(sentences[i] for i in keep)):
        return ""
    return separator.join(sentences[i] for i in sorted(keep))
