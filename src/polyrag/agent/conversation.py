"""What a conversation's earlier answers bring to a follow-up.

A follow-up ("And in 2022?", "What is the difference between the two?") rests on what the
conversation answered before: the passages an earlier answer cited are where its figures are.
When the rewrite had to make the question stand alone (it changed it, so the question leans on
the conversation), the passages the last answer cited join what retrieval found, right after its
best two hits, so the planner, the tools and the model see them without searching again. Code
decides this; no model call.

Only passages still in the index in the same version are used, read back from the store by their
ordinal (a changed file has a new source id, a removed one none); so is the table a SQL result
cited, when its source is still there. Passages outside the question's filter are left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from polyrag.types import Answer, Chunk, Filter, Hit

MAX_JOINED = 2  # passages of the earlier answer that join a follow-up's evidence
AFTER = 2  # they come after this many of retrieval's hits

Ordinals = Callable[[str, Sequence[int]], list[Chunk]]  # `Store.chunks_by_ordinal`


@dataclass(frozen=True)
class Consulted:
    question: str  # the earlier question whose answer was consulted
    hits: list[Hit]  # retrieval's hits with that answer's passages joined
    joined: tuple[Chunk, ...]


def earlier_answer(earlier: Sequence[Answer]) -> Answer | None:
    """The conversation's last answer that said something with sources."""
    return next((a for a in reversed(earlier) if not a.refused and a.citations), None)


def consult(
    asked: str,
    standalone: str,
    earlier: Sequence[Answer],
    hits: list[Hit],
    where: Filter | None,
    by_ordinal: Ordinals,
    live: Callable[[], set[str]],
) -> Consulted | None:
    """Retrieval's hits with the last answer's passages joined, or None when the question
    stands alone or there is nothing (still indexed, within the filter) to join."""
    last = earlier_answer(earlier)
    if last is None or " ".join(standalone.split()) == " ".join(asked.split()):
        return None
    sources = live()
    found = {hit.chunk.chunk_id for hit in hits}
    joined: list[Chunk] = []
    for citation in last.citations:
        chunk = _current(citation.chunk, sources, by_ordinal)
        if chunk is None or chunk.chunk_id in found:
            continue
        if where is not None and not where.holds(chunk):
            continue
        found.add(chunk.chunk_id)
        joined.append(chunk)
        if len(joined) == MAX_JOINED:
            break
    if not joined:
        return None
    head, rest = hits[:AFTER], hits[AFTER:]
    score = head[-1].score if head else 1.0
    merged = [*head, *(Hit(chunk, score) for chunk in joined), *rest]
    return Consulted(last.question, merged, tuple(joined))


_ORDINAL = re.compile(r"-(\d+)$")


def _current(chunk: Chunk, sources: set[str], by_ordinal: Ordinals) -> Chunk | None:
    """The chunk as the index holds it now, or None when its source changed or went away."""
    if chunk.source_id not in sources:
        return None
    if chunk.chunk_id.startswith(f"{chunk.source_id}#"):  # a table's rows a SQL result cited
        return chunk
    number = _ORDINAL.search(chunk.chunk_id)
    if not chunk.chunk_id.startswith(chunk.source_id) or number is None:
        return None  # a tool's result: computed for that question, not a passage
    stored = by_ordinal(chunk.source_id, [int(number.group(1))])
    return next((c for c in stored if c.chunk_id == chunk.chunk_id), None)
