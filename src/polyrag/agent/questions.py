"""Reading questions and replies with code: the things a comparison names, whether a short
answer is written in the sources, which document a user's reply picks out, and when a question
about "the report" fits several documents equally."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from polyrag.answer.citations import MARKER
from polyrag.answer.evidence import content_words, stems
from polyrag.answer.numbers import numbers_in_text, same_number
from polyrag.months import MONTHS, month_number
from polyrag.types import Hit

CAPITALISED = re.compile(r"\b(?:[A-Z][\w'.&-]*(?:\s+(?:of|the|de|von|van|for|and the)\s+|\s+)?)+")
_COMPARING = frozenset(
    {
        "same", "both", "either", "neither", "different", "older", "younger", "first", "earlier",
        "later", "longer", "shorter", "larger", "bigger", "smaller", "more", "fewer", "higher",
        "lower", "also", "located", "described", "based",
    }
)  # fmt: skip
_CONNECTORS = frozenset({"of", "the", "de", "von", "van", "for", "and"})
# A question asking for a rate, a share or a ratio rather than an amount.
_QUOTED = re.compile(r'"([^"]+)"')  # a quoted title is one of the question's names
QUESTION_WORDS = frozenset(
    {
        "What", "Which", "Who", "Whom", "Whose", "When", "Where", "Why", "How", "Is", "Are",
        "Was", "Were", "Do", "Does", "Did", "The", "A", "An", "In", "On", "Of", "For", "And",
        "Or", "Has", "Have", "Had", "Can", "Could", "Will", "Would",
    }
)  # fmt: skip


def stated_in(answer: str, passages: Sequence[str]) -> bool:
    """Whether a short answer is written in the passages (80% of its words, at least one; a
    one-digit answer such as "1", which has no such word, as a number of its own)."""
    words = content_words(answer)
    if not words:
        digit = re.fullmatch(r"\W*(\d)\W*", answer)
        if digit is None:
            return False
        alone = re.compile(rf"(?<![\w.,]){digit[1]}(?![\w]|[.,]\d)")
        return any(alone.search(text) for text in passages)
    known = content_words(" ".join(passages))
    return len(words & known) >= 0.8 * len(words)


def chosen_by_reply(hits: Sequence[dict[str, Any]], reply: str) -> list[dict[str, Any]]:
    """The hits from the files a reply picks out ("the 2024 one" → travel-policy-2024.md):
    those whose name holds most of the reply's words, when that tells them apart."""
    words = [w for w in re.findall(r"[\w-]+", reply.casefold()) if len(w) > 2 or w.isdigit()]
    words = [w for w in words if w not in {"the", "one", "and", "this", "that"}]

    def score(hit: dict[str, Any]) -> int:
        stem = Path(hit["chunk"]["path"]).stem.casefold()
        return sum(1 for w in words if w in stem)

    scores = [score(h) for h in hits]
    best = max(scores, default=0)
    if best == 0 or best == min(scores):
        return []  # the reply names no file, or names them all alike
    return [h for h, points in zip(hits, scores, strict=True) if points == best]


def entity_searches(question: str) -> list[str]:
    """For a comparison, one search per named thing: "Were Scott Derrickson and Ed Wood of the
    same nationality?" → "Scott Derrickson nationality", "Ed Wood nationality"."""
    names = []
    for match in CAPITALISED.finditer(question):
        words = match.group(0).strip(" ,.?").split()
        while words and (words[0] in QUESTION_WORDS or words[0].lower() in _CONNECTORS):
            words.pop(0)
        while words and words[-1].lower() in _CONNECTORS:
            words.pop()
        name = " ".join(words)
        if name and name not in names:
            names.append(name)
    quoted = _QUOTED.findall(question)
    names = list(dict.fromkeys([*quoted, *names]))
    if len(names) < 2:
        return []
    in_names = {w for name in names for w in re.findall(r"\w+", name.lower())}
    rest = [w for w in content_words(question) if w not in in_names and w not in _COMPARING]
    topic = " ".join(sorted(rest, key=question.lower().find))
    return [f"{name} {topic}".strip() for name in names[:3]]


def ambiguous(question: str, hits: Sequence[Hit]) -> str | None:
    """A question back when the question speaks of "the" document and several fit as well."""
    match = re.search(
        r"\bthe (report|document|file|policy|contract|spreadsheet|presentation|deck|e-?mail|"
        r"memo|paper|agreement|invoice|manual|plan)\b",
        question,
        re.IGNORECASE,
    )
    if match is None or len(hits) < 2:
        return None
    best = hits[0].score
    close: list[str] = []
    for hit in hits:
        if hit.score < 0.97 * best:
            break
        name = Path(hit.chunk.path).name
        if name not in close:
            close.append(name)
    if len(close) < 2:
        return None
    options = " or ".join(f"{name!r}" for name in close[:3])
    return f"Which {match.group(1).lower()} do you mean: {options}?"


def relevant(passages: Sequence[str], question: str) -> list[str]:
    """The passages that speak of what the question names (a name of it, or two of its words)."""
    names = [n for n in names_in(question)]
    words = content_words(question)
    return [
        text
        for text in passages
        if any(name.lower() in text.lower() for name in names)
        or len(words & content_words(text)) >= 2
    ]


def bridge_searches(
    question: str, passages: Sequence[str], titles: Sequence[str] = (), limit: int = 2
) -> list[str]:
    """Searches for the next hop, made by code: the names the best passages give for what the
    question describes (`bridge_names`: "Androscoggin Bank Colisée", where the Lewiston
    Maineiacs played their home games), each with the question's words those passages do not
    answer yet ("seat many people"). None when the likeliest bridge already has its own passage
    among those found (`titles`): the next hop is there."""
    seen_text = " ".join(passages)
    rest = [w for w in content_words(question) if w not in content_words(seen_text)]
    rest.sort(key=question.lower().find)
    found = bridge_names(question, passages)[:limit]
    if found and has_own_passage(found[0], titles):
        return []
    return [
        f"{name} {' '.join(rest[:4])}".strip()
        for name in found
        if not has_own_passage(name, titles)
    ]


def has_own_passage(name: str, titles: Sequence[str]) -> bool:
    """Whether a name is the title of one of these passages ("Front Row" of "Front Row
    (software)"; a single word, such as a surname, as the title's last word: "Nixon")."""
    lowered = " ".join(name.lower().split())
    for title in titles:
        bare = _bare_title(title)
        if bare == lowered or (" " not in lowered and bare.split()[-1:] == [lowered]):
            return True
    return False


def bridge_names(question: str, passages: Sequence[str]) -> list[str]:
    """The names the passages give that the question does not, most likely bridge first: the
    thing a two-hop question describes instead of naming ("the arena where the Lewiston
    Maineiacs played their home games") is named in a passage about the question's own names,
    in the sentence that repeats the description ("The team played its home games at the
    Androscoggin Bank Colisée"), often right beside the description's words ("during the Nixon
    administration"), and its name may say what kind of thing it is ("a conference": "America
    East Conference").

    A name scores the description's words its sentence shares, twice over those within three
    words of it, and three for a description word in the name itself. A name sharing a word
    with the question's own names ("University of Vermont" for "the Vermont Catamounts") is
    more likely the same thing again than the bridge, and a single word is more likely an
    adjective than a name: each counts less; months, nationalities and pronouns not at all.
    Ties go to the earlier passage, then the earlier place.

    Give the passages whole: one trimmed to the question's words may have lost the sentence
    that names the bridge ("The film was directed by Scott Derrickson")."""
    asked = [n.lower() for n in names_in(question)] + [q.lower() for q in _QUOTED.findall(question)]
    asked_words = content_words(" ".join(asked))
    described = {w[:_STEM] for w in content_words(question) - asked_words}
    lowered_question = question.lower()
    # The passages about the question's own things: titled with one of its names, else
    # mentioning one (a passage about the bridge itself often names them too).
    titled = [t for t in passages if any(_mentions(_head(t), name) for name in asked)]
    mentioning = [t for t in passages if any(_mentions(t, name) for name in asked)]
    about = titled or mentioning or list(passages)
    scored: dict[str, tuple[int, int, int]] = {}
    order = 0
    for rank, text in enumerate(about):
        own = _head(text).lower()
        for sentence in _SENTENCE.split(text.partition("\n")[2] if own else text):
            shared = len(described & stems(sentence, _STEM))
            words = sentence.split()
            for name in names_in(sentence):
                lowered = name.lower()
                if lowered in lowered_question or any(lowered in a or a in lowered for a in asked):
                    continue
                if own and lowered in own:
                    continue
                single = " " not in name
                if name in _NOT_NAMES or (
                    single and (_NOT_A_NAME.match(name) or sentence.startswith(name))
                ):
                    continue
                at = _position(words, name)
                length = len(name.split())
                near = words[max(0, at - 3) : at] + words[at + length : at + length + 3]
                score = shared + 2 * len(described & stems(" ".join(near), _STEM))
                score += 3 * len(described & stems(name, _STEM))
                score -= 2 if content_words(name) & asked_words else 0
                score -= 1 if single else 0
                order += 1
                best = scored.get(name)
                if best is None or score > best[0]:
                    scored[name] = (score, -rank, -order)
    return sorted(scored, key=lambda name: scored[name], reverse=True)


def _head(text: str) -> str:
    """A passage's title: its first line, when more lines follow."""
    head, _, body = text.partition("\n")
    return head if body else ""


def _mentions(text: str, name: str) -> bool:
    """Whether a passage writes a name, whatever its punctuation ("Guns N' Roses")."""
    words = content_words(name)
    return bool(words) and words <= content_words(text)


# Words compared by their first four letters: "writer" meets "written", "competes" "compete".
_STEM = 4
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(])|\n+")
# Capitalised words that are not names: pronouns and words that start a sentence.
_NOT_NAMES = frozenset(
    {"It", "Its", "He", "She", "His", "Her", "They", "Their", "This", "These", "That", "Those",
     "There", "We", "Our", "I", "You", "In", "At", "On", "As", "By", "After", "Before"}
)  # fmt: skip


def _position(words: Sequence[str], name: str) -> int:
    """Where a name starts among a sentence's words (0 when not found word for word)."""
    first = name.split()[0]
    for i, word in enumerate(words):
        if word.strip(" ,.?'\"()“”").startswith(first):
            return i
    return 0


def names_in(text: str) -> list[str]:
    """Capitalised names in a text, in order ("Corliss Archer", "Kiss and Tell"), leaving out
    question words and single letters."""
    out: list[str] = []
    for match in CAPITALISED.finditer(text):
        words = [w.strip(" ,.?'\"()") for w in match.group(0).split()]
        while words and (words[0] in QUESTION_WORDS or words[0].lower() in _CONNECTORS):
            words.pop(0)
        while words and words[-1].lower() in _CONNECTORS:
            words.pop()
        words = [w for w in words if w]
        if words and len(" ".join(words)) > 1:
            name = " ".join(words)
            if name not in out:
                out.append(name)
    return out


def names_written(question: str, hits: Sequence[Hit]) -> str:
    """The question's full names (of two words or more: "Carla Diaz"), quoted, when one of the
    passages writes every one of them, as the question does or surname first as a listing
    does ("ENGLERT, PAYTON A" for "Payton Englert"); "" otherwise. A single word ("West",
    "April") is no evidence: every document has some."""
    names = full_names(question)
    if not names:
        return ""
    patterns = [re.compile(rf"(?<!\w){_name_written(name)}(?!\w)", re.IGNORECASE) for name in names]
    for hit in hits:
        text = " ".join(hit.chunk.text.split())
        if all(pattern.search(text) for pattern in patterns):
            return " and ".join(f"'{name}'" for name in names)
    return ""


def name_beside_figure(question: str, reply: str, passages: Sequence[str]) -> str:
    """What a passage writes when it gives one of the question's full names and, right after
    it, the one figure the reply adds to the question ("NEEL KASHKARI 247" for "Neel Kashkari
    received 247 votes"): a line of a listing or a ballot's results, which answers a lookup
    about that name whatever the words around it. "" otherwise."""
    asked = numbers_in_text(question)
    added = {
        n
        for n in numbers_in_text(MARKER.sub(" ", reply))
        if not any(same_number(n, q) for q in asked)
    }
    if len(added) != 1:
        return ""
    (figure,) = added
    for name in full_names(question):
        # The name, at most three words of its line (a middle initial, a title), the figure.
        pattern = re.compile(
            rf"(?<!\w){_name_written(name)}(?:\s+[^\W\d]+\.?){{0,3}}\s+"
            r"(?P<figure>[$€£]?\d[\d,]*(?:\.\d+)?)(?![\w.,]\d)",
            re.IGNORECASE,
        )
        for passage in passages:
            for found in pattern.finditer(" ".join(passage.split())):
                if any(same_number(figure, n) for n in numbers_in_text(found["figure"])):
                    return f"'{found.group(0)}'"
    return ""


def unwritten_names(question: str, texts: Sequence[str]) -> list[str]:
    """The question's full names (of two words or more) that none of the texts writes: a
    lookup about "Robert Harper" over a passage naming William Rainey Harper and Robert
    Maynard Hutchins has no answer there, whatever sentence the reply leans on. A name counts
    as written with up to three words between its first and its last ("William John Macquorn
    Rankine" for "William Rankine"), surname first ("HARPER, ROBERT"), in the plural, or in
    its letters alone ("BESTBUY" for "Best Buy", "U.S. Information Agency"). A name opening
    the question loses its first word, which the sentence capitalises ("After the Oligocene")."""
    opening = question.lstrip()
    lower = set(re.findall(r"\b[^\W\d_A-Z]+\b", " ".join([question, *texts])))
    names = []
    for name in full_names(opening):
        shown = name.split()[1:] if opening.startswith(name) else name.split()
        while shown and shown[0].lower() in _CONNECTORS:
            shown.pop(0)
        proper = [w for w in shown if w.lower() not in _CONNECTORS]
        if len(proper) >= 2 and all(_proper(w, lower) for w in proper):
            names.append((name, _name_words(" ".join(shown))))
    if not names:
        return []
    written = [_name_words(text) for text in texts]
    letters = "".join(re.sub(r"[^0-9a-z]", "", text.casefold()) for text in texts)
    return [
        name
        for name, words in names
        if "".join(words) not in letters
        and not any(_writes(w, words) for w in written)
        and not any(_initials(name) in w for w in written)  # "CFO" for "Chief Financial Officer"
    ]


def _initials(name: str) -> str:
    return "".join(w[0] for w in name.split() if w.lower() not in _CONNECTORS).lower()


def _proper(word: str, lower: set[str]) -> bool:
    """Whether a word of a name is a proper noun: capitalised letters ("Harper", "Nassau-
    Saarbucken"), no acronym ("EBITDA"), period ("FY2019") or month, and never written in lower
    case where it stands ("Total Gross Margin" names a line of a statement: "total" and "gross
    margin" are words the statement also writes)."""
    bare = re.sub(r"['’]s$", "", word).strip(".,")
    parts = [p for p in bare.split("-") if p]
    return (
        bool(parts)
        and all(p[:1].isupper() and p[1:].islower() and p.isalpha() for p in parts)
        and bare not in MONTHS
        and not any(p.lower() in lower for p in parts)
    )


def _name_words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", re.sub(r"['’]s\b", "", text).casefold())


def _writes(text: list[str], name: list[str]) -> bool:
    """Whether the words of a text hold a name's words in order, allowing up to three words
    between its first and the rest, or its last word first (a listing's "Harper, Robert")."""

    def same(word: str, wanted: str) -> bool:
        return word == wanted or (word.startswith(wanted) and len(word) - len(wanted) <= 2)

    first, *rest = name
    for at, word in enumerate(text):
        if same(word, name[-1]) and all(
            at + 1 + i < len(text) and same(text[at + 1 + i], w) for i, w in enumerate(name[:-1])
        ):
            return True  # surname first
        if not same(word, first):
            continue
        for gap in range(4):
            start = at + 1 + gap
            if all(start + i < len(text) and same(text[start + i], w) for i, w in enumerate(rest)):
                return True
    return False


def unwritten_codes(question: str, texts: Sequence[str]) -> list[str]:
    """The question's codes that none of the texts writes as a word of its own: a formula, a
    model or a part number ("What is Fe2O?" over a passage writing Fe2O3; "the A321's range"
    over one about the A320) names something the passages do not describe. A code mixes
    letters, one of them a capital, and digits in one word; a period ("FY2019", "Q3", "2Q19",
    "FY2023Q1"), a filing ("10-K"), an ordinal or a measure ("18th", "10km", "1990s"), a
    name's number ("COVID-19"), a date ("2007-Jan") and "3D" are not codes."""
    codes = []
    for match in _CODE.finditer(question):
        code = match.group(0)
        if re.search(r"\d", code) and re.search(r"[A-Z]", code) and not _NOT_CODE.fullmatch(code):
            codes.append(code)
    return [code for code in dict.fromkeys(codes) if not any(_code(code).search(t) for t in texts)]


_CODE = re.compile(r"(?<![\w.-])[A-Za-z0-9](?:[\w-]*[A-Za-z0-9])?(?![\w-])")
_NOT_CODE = re.compile(
    r"\d+(?:\.\d+)?[a-z%]+"  # 18th, 10km, 1990s
    r"|(?:FY|F|CY|Q[1-4]|H[12]|[1-4]Q)[-']?\d+(?:Q[1-4]|H[12])?|\d{2,4}(?:Q[1-4]|H[12])"
    r"|Q[1-4]|H[12]|\d+-?[KQF]|\d+[A-Z]{1,2}"
    r"|[A-Za-z]+-\d+|\d+-[A-Za-z]+",  # COVID-19, col-4; dates: 2007-Jan, 18-September
    re.IGNORECASE,
)


def _code(code: str) -> re.Pattern[str]:
    """A code as texts write it: whole, case aside, with or without a hyphen or a space where
    letters meet digits ("IFRS 9"), and not followed by one more digit ("Fe 2O 3" is Fe2O3). A
    number of its own after a space is no part of it: a listing's "DHAW20190045 07/10/2019"
    writes the document DHAW20190045 and its date."""
    parts = re.findall(r"[A-Za-z]+|\d+|[^A-Za-z\d]+", code)
    body = "[ -]?".join(re.escape(part) for part in parts if part != "-")
    return re.compile(rf"(?<![^\W_]){body}(?![^\W_]| ?\d(?![\d/.,:-]?\d))", re.IGNORECASE)


def opposite_words(
    question: str, texts: Sequence[str], sentences: Sequence[str]
) -> list[tuple[str, str]]:
    """The question's words that none of the texts writes while a sentence a reply rests on
    writes their opposite, each as (asked, written): "When the Rhine took a right turn what
    did it create?" answered from "the Rhine took a left turn, creating the Channel River".
    A question naming both ("the increase / (decrease) in revenue") asks about either, a
    choice ("Which is older, X or Y?") is answered by either ("Y is younger"), and a word of
    a name ("Best Buy") is none of these words."""
    if _CHOICE.search(question):
        return []
    # A capitalised word is part of a name ("Best Buy"), unless it opens the question.
    first, _, rest = question.strip().partition(" ")
    asked = _word_families(" ".join([first, *re.findall(r"\b[a-z]+", rest)]))
    if not asked:
        return []
    written = set().union(*(_word_families(text) for text in texts)) if texts else set()
    resting = set().union(*(_word_families(s) for s in sentences)) if sentences else set()
    found = []
    for family in sorted(asked - written):
        opposite = family ^ 1  # the other family of its pair
        if opposite in resting and opposite not in asked:
            found.append((_NAMES[family], _NAMES[opposite]))
    return found


_CHOICE = re.compile(r"\bor\b", re.IGNORECASE)
# Words of opposite meaning, each a family of its forms; the first form names it.
_PAIRS = (
    ("left", "right"),
    ("north northern northward", "south southern southward"),
    ("east eastern eastward", "west western westward"),
    ("specific", "general"),
    ("before", "after"),
    ("increase increases increased increasing", "decrease decreases decreased decreasing"),
    ("rise rises rose risen rising", "fall falls fell fallen falling"),
    ("lowest minimum", "highest maximum"),
    ("largest biggest", "smallest"),
    ("earliest", "latest"),
    ("oldest older", "youngest younger"),
    ("import imports imported", "export exports exported"),
    ("inner", "outer"),
    ("upper", "lower"),
    ("won win wins winning", "lost lose loses losing"),
    ("bought buy buys buying", "sold sell sells selling"),
    ("longest", "shortest"),
    ("male", "female"),
    ("internal", "external"),
    ("legal", "illegal"),
    ("accepted accept accepts", "rejected reject rejects"),
    ("above", "below"),
    ("inside", "outside"),
    ("input", "output"),
    ("best", "worst"),
    ("strong stronger strongest", "weak weaker weakest"),
    ("fastest", "slowest"),
    (
        "attacked attack attacks assaulted raided besieged invaded harassed",
        "defended defend defends",
    ),
    ("victory", "defeat"),
    ("born", "died"),
    ("include includes included including", "exclude excludes excluded excluding"),
    ("agree agrees agreed agreement", "disagree disagrees disagreed disagreement"),
    ("heating heat heated", "cooling cool cooled"),
    ("gave give gives giving", "took take takes taken taking"),  # not "given": "a given year"
    ("lent lend lends lending", "borrowed borrow borrows borrowing"),
    ("sent send sends sending", "received receive receives receiving"),
)
_FAMILIES = [frozenset(forms.split()) for pair in _PAIRS for forms in pair]
_NAMES = [pair.split()[0] for pairs in _PAIRS for pair in pairs]
_WORD = re.compile(r"[A-Za-z]+")


def _word_families(text: str) -> set[int]:
    """The families of `_PAIRS` that the text's words belong to, by index."""
    words = {w.lower() for w in _WORD.findall(text)}
    return {i for i, family in enumerate(_FAMILIES) if family & words}


def full_names(question: str) -> list[str]:
    """The question's names of two words or more, without a possessive ("Payton Englert")."""
    return [re.sub(r"['’]s$", "", n) for n in names_in(question) if len(n.split()) >= 2]


def _name_written(name: str) -> str:
    """A pattern for a name as written ("Payton Englert") or surname first, as a listing
    writes it ("ENGLERT, PAYTON")."""
    *given, surname = name.split()
    written = re.escape(" ".join([*given, surname]))
    return rf"(?:{written}|{re.escape(surname)},\s*{re.escape(' '.join(given))})"


# -- who is older: birth dates compared by code --------------------------------------------------

AGES = re.compile(
    r"\b(?P<word>older|elder|younger|born (?:first|earlier|later|last))\b", re.IGNORECASE
)
_MONTHS = "|".join(MONTHS)
# A single capitalised word that is no bridge: a month, a nationality ("American", "Danish").
_NOT_A_NAME = re.compile(rf"(?:{_MONTHS})$|[A-Z][a-z]+(?:an|ish|ese|ic)$")
_DATE = re.compile(
    rf"(?P<md>(?P<m1>{_MONTHS}) (?P<d1>\d{{1,2}}),? (?P<y1>\d{{4}}))|"
    rf"(?P<dm>(?P<d2>\d{{1,2}}) (?P<m2>{_MONTHS}),? (?P<y2>\d{{4}}))|(?P<y3>\b\d{{4}}\b)"
)
_LIFE = re.compile(r"\(([^()]*?\b(?:born|\d{4})\b[^()]*)\)")  # "(born …)" or "(1902 – 1968)"


@dataclass(frozen=True)
class Birth:
    name: str
    written: str  # the date as the passage writes it
    when: tuple[int, int, int]  # year, month, day (0 where the passage gives only the year)
    passage: int  # the index of the passage that says it


def birth(name: str, passages: Sequence[str]) -> Birth | None:
    """When a person was born, as the passage about them writes it right after their name:
    "Annie Morton (born October 8, 1970)", "Ed Wood (October 10, 1924 – December 10, 1978)"."""
    last = name.split()[-1].lower()
    for index, text in enumerate(passages):
        lowered = text.lower()
        at = lowered.find(last)
        if at < 0:
            continue
        life = _LIFE.search(text, at)
        if life is None or life.start() - at > 80:  # the parenthesis must follow the name
            continue
        date = _DATE.search(life.group(1))
        if date is None:
            continue
        if date["md"]:
            when = (int(date["y1"]), month_number(date["m1"]), int(date["d1"]))
        elif date["dm"]:
            when = (int(date["y2"]), month_number(date["m2"]), int(date["d2"]))
        else:
            when = (int(date["y3"]), 0, 0)
        return Birth(name, date.group(0), when, index)
    return None


def older_by_dates(question: str, passages: Sequence[str]) -> tuple[Birth, Birth] | None:
    """For "Who is older, A or B?" (younger, born first, born later): the birth of the one the
    question asks for, then the other's; None when the question is not of that kind, a date is
    missing, or the dates cannot tell the two apart."""
    asked = AGES.search(question)
    names = names_in(question)
    if asked is None or len(names) != 2:
        return None
    found = [birth(name, passages) for name in names]
    if found[0] is None or found[1] is None:
        return None
    first, second = sorted((b for b in found if b is not None), key=lambda b: b.when)
    if first.when == second.when or (
        first.when[0] == second.when[0] and 0 in (first.when[1], second.when[1])
    ):
        return None
    earlier_wins = asked["word"].lower() in ("older", "elder", "born first", "born earlier")
    return (first, second) if earlier_wins else (second, first)


# -- the bridge of a two-hop question ---------------------------------------------------------


@dataclass(frozen=True)
class Bridge:
    """What a two-hop question describes without naming, as the sources name it: "the woman who
    portrayed Corliss Archer in the film Kiss and Tell" is Shirley Temple. ``via`` is the
    passage that names it beside the question's own names; ``about`` the passage about it."""

    name: str
    via: int
    about: int


def bridge_of(question: str, passages: Sequence[tuple[str, str, str]]) -> Bridge | None:
    """The bridge of a two-hop question, found by code in (source, title, text) passages: the
    passage holding most of the question's names names something else that is the title of a
    passage of another source (it has a document of its own, as in an encyclopedia), the
    likeliest bridge (`bridge_names`) tried first. None
    when no passage names the question's things or none of its names has its own document
    (the question is then not a two-hop question these sources resolve)."""
    asked = [n.lower() for n in names_in(question)]
    asked += [q.lower() for q in _QUOTED.findall(question)]
    if not asked:
        return None
    covers = [sum(1 for name in asked if name in text.lower()) for _, _, text in passages]
    if not covers or max(covers) == 0:
        return None
    via = covers.index(max(covers))
    source, own, text = passages[via]
    own_title = _bare_title(own)
    lowered_question = question.lower()
    ranked = bridge_names(question, [text])  # the likeliest bridge first, then the rest
    for name in [*ranked, *(n for n in names_in(text) if n not in ranked)]:
        lowered = name.lower()
        if lowered in lowered_question or any(lowered in a or a in lowered for a in asked):
            continue
        if own_title and (lowered in own_title or own_title in lowered):
            continue
        for about, (elsewhere, title, _) in enumerate(passages):
            bare = _bare_title(title)
            if elsewhere == source or not bare:
                continue
            if has_own_passage(name, [title]) or (len(bare.split()) > 1 and bare in lowered):
                return Bridge(name, via, about)
    return None


def _bare_title(title: str) -> str:
    """A title without its qualifier, as a name would be written: "Kiss and Tell (1945 film)"
    → "kiss and tell"."""
    return " ".join(re.sub(r"\([^)]*\)", " ", title.replace("_", " ")).split()).lower()


# -- the time between two dates, and a page the question names ------------------------------------

# "How many days passed between …", "how long after the signing did the deal close?": a span of
# days, weeks or months (whole years are a calculator's subtraction of two years).
ASKS_DAYS = re.compile(
    r"\bhow many (?:days|weeks|months)\b|\b(?:days|weeks|months) (?:between|after|before|"
    r"elapsed|passed|since|until|from)\b|\bhow long (?:after|before|did|had|was|were|will|"
    r"does|is)\b[^?]*\b(?:after|before|between|until|since|take|took|last|lasted)\b",
    re.IGNORECASE,
)
# A day's date: "3 March 2024", "March 3, 2024", "2024-03-03".
_FULL_DATE = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)? (?:{_MONTHS}),? \d{{4}}\b|"
    rf"\b(?:{_MONTHS}) \d{{1,2}}(?:st|nd|rd|th)?,? \d{{4}}\b|\b\d{{4}}-\d\d-\d\d\b"
)
# "the diagram on page 9", "page 15 and page 16": pages of a document the question points to.
NAMES_PAGE = re.compile(r"\bpage (\d+)\b", re.IGNORECASE)


def dated_sentences(passages: Sequence[str], most: int = 6) -> list[str]:
    """The sentences that write a day's date, as the passages give them (at most `most`): what
    a model needs to pick the two dates a span of days runs between."""
    found: list[str] = []
    for text in passages:
        for sentence in _SENTENCE.split(text):
            plain = " ".join(sentence.split())
            if _FULL_DATE.search(plain) and plain not in found:
                found.append(plain)
                if len(found) == most:
                    return found
    return found


def full_dates(passages: Sequence[str]) -> list[str]:
    """Every day's date the passages write, once each."""
    return list(dict.fromkeys(m.group(0) for text in passages for m in _FULL_DATE.finditer(text)))
