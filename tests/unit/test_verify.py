"""The reply check: numbers as the reply rounds them or as code recomputes them, sentence by
sentence, partial answers kept, unsupported claims withdrawn."""

from __future__ import annotations

from polyrag.answer.evidence import Evidence
from polyrag.answer.verify import verify
from polyrag.types import NO_ANSWER_FOUND, NOT_SUPPORTED, Chunk, Locator

REVENUE = "Net revenue was 1,577 million in 2019 and 1,373 million in 2018, led by the Nordics."


def item(n: int, text: str, *, backing: tuple[Chunk, ...] = ()) -> Evidence:
    chunk = Chunk(f"c{n}", f"s{n}", f"/docs/d{n}.pdf", text, Locator(page=n))
    return Evidence(n, chunk, text, backing=backing)


def test_a_stated_number_is_supported_and_cited() -> None:
    verdict = verify("Net revenue was 1,577 million in 2019 [1].", [item(1, REVENUE)])
    assert not verdict.refused and verdict.citations[0].chunk.chunk_id == "c1"


def test_a_made_up_number_is_withdrawn() -> None:
    verdict = verify("Net revenue was 1,812 million in 2019 [1].", [item(1, REVENUE)])
    assert verdict.refused and verdict.reason == NOT_SUPPORTED


def test_a_computed_change_is_kept_only_when_the_question_asks_for_arithmetic() -> None:
    reply = "Net revenue grew by 204 million, or 14.9%, from 2018 to 2019 [1]."
    assert verify(reply, [item(1, REVENUE)]).refused
    verdict = verify(reply, [item(1, REVENUE)], arithmetic=True)
    assert not verdict.refused
    assert "1577 − 1373 = 204" in verdict.computed
    assert any("÷ 1373 × 100" in note for note in verdict.computed)


def test_a_dates_day_is_no_operand_of_a_computed_number() -> None:
    """ "3 ÷ 12 × 100 = 25" from three quarters and the meeting of 12 November is no support
    for a 25%; the day still supports itself, and a figure 12 elsewhere is an operand."""
    minutes = "On 12 November the board reviewed three quarters. The budget rose from 1.9 million."
    question = "By what percentage did the budget increase?"
    made_up = verify(
        "The budget rose by 25% [1].", [item(1, minutes)], arithmetic=True, question=question
    )
    assert made_up.refused
    day = verify("The board met on 12 November [1].", [item(1, minutes)], question="When?")
    assert not day.refused
    counted = minutes + " It has 12 members."
    assert not verify(
        "The budget rose by 25% [1].", [item(1, counted)], arithmetic=True, question=question
    ).refused


def test_a_reply_broken_off_where_its_answer_should_stand_states_nothing() -> None:
    """ "The chief financial officer of Nordwind Logistics is [1]." names no one: no answer."""
    report = "Nordwind Logistics closed the third quarter with higher volumes."
    broken = verify(
        "The chief financial officer of Nordwind Logistics is [1].",
        [item(1, report)],
        question="Who is the chief financial officer of Nordwind Logistics?",
    )
    assert broken.refused and broken.reason == NO_ANSWER_FOUND
    said = verify("Nordwind Logistics closed the third quarter [1].", [item(1, report)])
    assert not said.refused
    in_2015 = verify(  # the question's own year restated does not make it an answer
        "The state with the most background checks in total in November 2015 was [1].",
        [item(1, "NICS Firearm Background Checks November - 2015: Kentucky 295,891")],
        question="Which state had the most background checks in total in November 2015?",
    )
    assert in_2015.refused and in_2015.reason == NO_ANSWER_FOUND
    cut = "Nordwind Logistics closed the third quarter with [1]."  # a line cut short says something
    assert not verify(cut, [item(1, report)]).refused


def test_a_figure_of_a_table_in_keur_may_be_written_in_euros() -> None:
    """820 under "Q2 2025 (kEUR)" is 820,000 euros; 830,000 is no figure of the table."""
    table = "| Region | Q2 2025 (kEUR) | Q3 2025 (kEUR) |\n| --- | --- | --- |\n| North | 820 | 9 |"
    question = "What was the North region's revenue in Q2 2025?"
    said = "The North region's revenue in Q2 2025 was 820,000 euros [1]."
    assert not verify(said, [item(1, table)], question=question).refused
    other = said.replace("820,000", "830,000")
    assert verify(other, [item(1, table)], question=question).refused
    # Cited with the wrong marker: the table is the second item.
    prose = item(1, "Nordwind Logistics closed the third quarter with higher volumes.")
    assert not verify(said, [prose, item(2, table)], question=question).refused


def test_a_wrongly_computed_change_is_withdrawn_even_with_arithmetic() -> None:
    verdict = verify("Net revenue grew by 240 million [1].", [item(1, REVENUE)], arithmetic=True)
    assert verdict.refused


def test_a_partial_answer_keeps_what_is_stated_and_says_what_is_not() -> None:
    reply = "Net revenue was 1,577 million in 2019 [1]. The dividend is not stated in the sources."
    verdict = verify(reply, [item(1, REVENUE)])
    assert not verdict.refused and verdict.partial
    assert "not stated" in verdict.text


def test_an_unsupported_sentence_is_withdrawn_and_the_rest_kept() -> None:
    reply = "Net revenue was 1,577 million in 2019 [1]. Profit was 312 million [1]."
    verdict = verify(reply, [item(1, REVENUE)])
    assert not verdict.refused and verdict.partial
    assert "312" not in verdict.text and verdict.withdrawn == ("Profit was 312 million [1].",)


def test_a_reply_that_only_declines_is_a_refusal() -> None:
    verdict = verify("I cannot find this information in the provided sources.", [item(1, REVENUE)])
    assert verdict.refused and verdict.reason == NO_ANSWER_FOUND


def test_a_marker_after_the_full_stop_belongs_to_its_sentence() -> None:
    verdict = verify("The boiling point of water is 212 degrees. [1]", [item(1, REVENUE)])
    assert verdict.refused  # 212 is nowhere: the marker alone does not survive as an answer


def test_a_tool_result_is_cited_by_the_cells_it_rests_on() -> None:
    cells = Chunk("cells", "s1", "/docs/ducks.xlsx", "| Year | Ducks |", Locator(cells="C5:C10"))
    text = "Computed by SQL from the rows below: total = 915\n| Year | Ducks |\n| 2019 | 120 |"
    result = item(1, text, backing=(cells,))
    verdict = verify("In total 915 ducks were observed [1].", [result, item(2, REVENUE)])
    assert not verdict.refused
    assert [c.chunk.chunk_id for c in verdict.citations] == ["cells"]


def test_a_reply_without_markers_is_attributed_and_checked_against_all_evidence() -> None:
    verdict = verify(
        "Net revenue was 1,373 million in 2018.", [item(1, "Unrelated."), item(2, REVENUE)]
    )
    assert not verdict.refused and verdict.citations[0].n == 2


def test_rounded_numbers_match_as_the_reply_rounds_them() -> None:
    evidence = [item(1, "The margin was 14.857% of sales.")]
    assert not verify("The margin was 14.9% of sales [1].", evidence).refused
    assert verify("The margin was 15.9% of sales [1].", evidence).refused


def test_amounts_with_a_decimal_comma_are_summed_as_written() -> None:
    evidence = [
        item(1, "In Lyon the cake cost 15,50 € and the coffee 3,50 €."),
        item(2, "In Madrid the paella cost 25,75 €."),
    ]
    reply = "The cake and the paella cost 41.25 euros together [1][2]."
    assert not verify(reply, evidence, arithmetic=True).refused
    assert not verify("The coffee cost 3.50 € [1].", evidence).refused
    assert verify("The coffee cost 3.60 € [1].", evidence).refused


def test_talk_about_the_sources_is_not_an_answer() -> None:
    reply = "Water boils at 212 degrees. This can be found in the information in the sources [1]."
    verdict = verify(reply, [item(1, REVENUE)])
    assert verdict.refused  # the claim is withdrawn and what is left states nothing


def test_a_wrong_marker_is_corrected_when_other_evidence_supports_the_sentence() -> None:
    evidence = [item(1, "Kiss and Tell starred Shirley Temple."), item(2, REVENUE)]
    verdict = verify("Net revenue was 1,577 million in 2019 [1].", evidence)
    assert not verdict.refused
    assert [c.chunk.chunk_id for c in verdict.citations] == ["c2"]


def test_the_questions_own_numbers_may_be_restated() -> None:
    evidence = [
        item(1, "| Operating loss carryforward | 73,260 | 57,768 | (header: 2019, 2 0 1 8)")
    ]
    reply = "The operating loss carryforward was 73,260 in 2019 and 57,768 in 2018 [1]."
    assert verify(reply, evidence).refused  # 2018 is written "2 0 1 8" in the source
    question = "What was the operating loss carryforward in 2019 and 2018 respectively?"
    assert not verify(reply, evidence, question=question).refused


def test_a_reply_about_a_year_no_source_writes_is_withdrawn() -> None:
    """The question presumes a year the sources do not cover: restating it with another
    year's figure is not an answer (written as 2019, "2 0 1 9" or FY19 it is)."""
    table = item(1, "Freshwater ducks — 2019: 120, 2020: 135, 2021: 170")
    question = "How many freshwater ducks were observed in 2018?"
    verdict = verify("170 freshwater ducks were observed in 2018 [1].", [table], question=question)
    assert verdict.refused and verdict.reason == NOT_SUPPORTED
    for written in ("2019", "2 0 1 9", "FY19"):
        source = item(1, f"Freshwater ducks in {written}: 120")
        reply = "120 freshwater ducks were observed in 2019 [1]."
        assert not verify(reply, [source], question=question.replace("2018", "2019")).refused


def test_a_reply_about_an_older_year_no_source_writes_is_withdrawn() -> None:
    """A history's years are years too: the reply restated the question's "pre-1875" over a
    passage writing "pre-1975". A number the sources write as an amount ("1,500 seats") is
    no year they lack."""
    passage = item(1, "The County Buildings were built for the pre-1975 Midlothian Council.")
    question = "What was built for the pre-1875 Midlothian Council?"
    reply = "The County Buildings were built for the pre-1875 Midlothian Council [1]."
    assert verify(reply, [passage], question=question).refused
    fixed = reply.replace("1875", "1975")
    assert not verify(fixed, [passage], question=question.replace("1875", "1975")).refused
    hall = item(1, "The hall has 1,500 seats and opened in 1891.")
    asked = "When did the hall with 1500 seats open?"
    assert not verify(
        "The hall with 1500 seats opened in 1891 [1].", [hall], question=asked
    ).refused


def test_a_decade_is_no_year() -> None:
    """A passage writing "the 2000s" does not write the year 2000: "grew by 10.0% in the year
    2000" restated the question over the decade's rate. A question about the decade finds
    it written as the 2000s, the 2000's or the '00s; "2000's" in a question may be the year's
    and is checked as the year."""
    passage = item(1, "The region grew less than the state average of 10.0% in the 2000s.")
    question = "How much did the region grow in the year 2000?"
    reply = "The region grew by 10.0% in the year 2000 [1]."
    verdict = verify(reply, [passage], question=question)
    assert verdict.refused and verdict.reason == NOT_SUPPORTED
    decade = "How much did the region grow in the 2000s?"
    for written in ("2000s", "2000's", "'00s"):
        source = item(1, f"The region grew by 10.0% in the {written}.")
        reply = "The region grew by 10.0% in the 2000s [1]."
        assert not verify(reply, [source], question=decade).refused
    dated = item(1, "Revenue was $5 million in 2000's first quarter.")
    asked = "What was the revenue in 2000's first quarter?"
    assert not verify("Revenue was $5 million [1].", [dated], question=asked).refused


def test_a_rank_no_source_writes_is_withdrawn() -> None:
    """ "When was Warsaw ranked as the 22nd most liveable city?" over a passage ranking it 32nd:
    the reply restated the question's rank with the passage's year. A rank written in digits
    or in words stands; a century is not checked (sources write "the 1700s")."""
    passage = item(1, "In 2012 the Economist ranked Warsaw as the 32nd most liveable city.")
    question = "When was Warsaw ranked as the 22nd most liveable city?"
    reply = "Warsaw was ranked as the 22nd most liveable city in 2012 [1]."
    verdict = verify(reply, [passage], question=question)
    assert verdict.refused and verdict.reason == NOT_SUPPORTED
    for written in ("22nd", "twenty-second"):
        source = item(
            1, f"In 2012 the Economist ranked Warsaw as the {written} most liveable city."
        )
        assert not verify(reply, [source], question=question).refused
    old = item(1, "Roughly 500,000 Huguenots had fled France by the 1700s.")
    asked = "How many Huguenots had fled France by the 18th century?"
    fled = "Roughly 500,000 Huguenots had fled France by the 18th century [1]."
    assert not verify(fled, [old], question=asked).refused


def test_a_reply_about_a_month_no_source_writes_is_withdrawn() -> None:
    """Rows of January to March and a question about April: the March figure restated for
    April is no answer. A date's month ("December 31") is not checked: sources write dates
    in many ways."""
    rows = "West | January | 1500\nWest | February | 1800\nWest | March | 2200"
    question = "What was the revenue of the West region in April?"
    reply = "The revenue of the West region in April was 2200 [1]."
    assert verify(reply, [item(1, rows)], question=question).refused
    march = question.replace("April", "March")
    assert not verify(reply.replace("April", "March"), [item(1, rows)], question=march).refused
    assert not verify(reply.replace("April", "Mar."), [item(1, rows)], question=march).refused
    dated = "Total assets as of December 31, 2022 were 2200 [1]."
    asked = "What were total assets as of December 31, 2022?"
    assert not verify(dated, [item(1, "Total assets 2022: 2200")], question=asked).refused
    # A month with its year is a period asked ("in December 2015" of the November report); a
    # day before the month makes it a date ("31 December 2019").
    report = item(1, "NICS Firearm Background Checks November - 2015\nTexas 21,550 146,982")
    december = "How many background checks did Texas have in December 2015?"
    said = "Texas had 146,982 background checks in December 2015 [1]."
    assert verify(said, [report], question=december).refused
    november = december.replace("December", "November")
    assert not verify(said.replace("December", "November"), [report], question=november).refused
    closing = item(1, "Total assets 2019: 2200")
    asked = "What were total assets at 31 December 2019?"
    assert not verify(
        "Total assets at 31 December 2019 were 2200 [1].", [closing], question=asked
    ).refused


def test_a_year_in_the_heading_over_a_passage_is_written_by_it() -> None:
    # A sheet's rows under the period printed above their table ("January–June 2023").
    row = "Row 10: Column 1 is Zone EUR, Sales (a) is 9467"
    where = Locator(sheet="Segments", rows=(10, 10), heading_path=("Segments", "January–June 2023"))
    headed = Evidence(1, Chunk("c1", "s1", "/docs/segments.xlsx", row, where), row)
    question = "What were Zone EUR's sales in January-June 2023?"
    reply = "Zone EUR's sales in January-June 2023 were 9467 [1]."
    assert not verify(reply, [headed], question=question).refused
    assert verify(reply, [item(1, row)], question=question).refused
    # A sheet named for the years since 1967 writes that year as "Since 67".
    since = Locator(sheet="Stanley Cups Since 67", heading_path=("Stanley Cups Since 67",))
    cups = "Row 5: Team is Maple Leafs, Location is TOR, Stanley Cups is 0"
    sheet = Evidence(1, Chunk("c2", "s2", "/docs/stanley-cups.xlsx", cups, since), cups)
    asked = "How many Stanley Cups have the Maple Leafs won since 1967?"
    won = "The Maple Leafs have won 0 Stanley Cups since 1967 [1]."
    assert not verify(won, [sheet], question=asked).refused
    assert verify(won, [item(1, cups)], question=asked).refused


def test_a_reply_about_a_quarter_no_source_writes_is_withdrawn() -> None:
    """A chart of Q1 to Q3 does not answer for Q4; a quarter written "fourth quarter", or in
    the name of a quarterly report's file, is written."""
    chart = item(1, "Quarterly revenue | Row 2: Year is 2026, Q1 is 20, Q2 is 25, Q3 is 30")
    question = "What was the Q4 revenue for 2026?"
    verdict = verify("The Q4 revenue for 2026 was 30 [1].", [chart], question=question)
    assert verdict.refused and verdict.reason == NOT_SUPPORTED
    spelled = item(1, "Revenue in the fourth quarter of 2026 was 30.")
    assert not verify("The Q4 revenue for 2026 was 30 [1].", [spelled], question=question).refused
    text = "Revenue in the 2024 interim period was 9,288."
    filing = Evidence(1, Chunk("c1", "s1", "/docs/BESTBUY_2024Q2_10Q.pdf", text, Locator()), text)
    reply = "Revenue in Q2 of FY2024 was 9,288 [1]."
    assert not verify(reply, [filing], question="What was revenue in Q2 of FY2024?").refused
    # A period of a quarter's or a half's length may be the one asked for, in a fiscal year.
    for text, asked in (
        ("Revenue for the three months ended June 30, 2024 was 9,288.", "Q2 of FY2024"),
        ("Sales January–June 2024 were 9,288.", "the first half of 2024"),
    ):
        reply = f"Revenue in {asked} was 9,288 [1]."
        assert not verify(reply, [item(1, text)], question=f"What was revenue in {asked}?").refused


def test_a_figure_may_be_given_in_the_unit_the_table_states() -> None:
    table = "U.S. $ in thousands | Net deferred tax asset | 2019: 795 | 2018: 772"
    verdict = verify("It was $795,000 in 2019 and $772,000 in 2018 [1].", [item(1, table)])
    assert not verdict.refused
    millions = "Total liabilities (in millions): 2018 1,010"
    assert not verify("Liabilities were $1.01 billion in 2018 [1].", [item(1, millions)]).refused
    # Another figure in another unit is still withdrawn, and so is a unit the source never states.
    assert verify("It was $796,000 in 2019 [1].", [item(1, table)]).refused
    assert verify("Net revenue was 1,577,000 in 2019 [1].", [item(1, "Net revenue 1,577")]).refused


def test_a_reply_about_a_quantity_no_source_writes_is_withdrawn() -> None:
    """A lookup for 12 g over rows of 0 to 10 g: restating 12 g with another row's figure is
    no answer; a day of a date is not such a quantity, nor is a computation's operand."""
    table = item(1, "Row 2: Dose (g) is 10, Corrosion rate (mm/year) is 0.0919")
    question = "What corrosion rate was measured with 12 g of inhibitor?"
    reply = "The corrosion rate with 12 g of inhibitor was 0.0919 mm/year [1]."
    verdict = verify(reply, [table], question=question)
    assert verdict.refused and verdict.reason == NOT_SUPPORTED
    reply_10 = reply.replace("12 g", "10 g")
    assert not verify(reply_10, [table], question=question.replace("12", "10")).refused
    # A number of things a row is named by is asked too; a count of what is asked is not.
    layers = item(1, "Row 2: enc-layers is 6, Language is OTSL, TEDs all is 0.955")
    eight = "What TED score did OTSL reach with 8 encoder layers?"
    assert verify("OTSL reached 0.955 with 8 encoder layers [1].", [layers], question=eight).refused
    listed = "What were the 3 languages' TED scores?"
    assert not verify("OTSL reached 0.955 [1].", [layers], question=listed).refused
    assets = item(1, "Total assets — 2019: 5,000")
    dated = "Total assets at 31 December 2019 were 5,000 [1]."
    assert not verify(dated, [assets], question="Total assets at 31 December 2019?").refused


def test_a_sum_the_reply_writes_out_supports_its_result() -> None:
    """Asked as a lookup, the model adds three cited figures and shows it: the result stands
    when the terms are the sources' and the sum is right, and is withdrawn when it is not."""
    table = item(
        1, "Row 2: Food is Leaves, Calories is 50 | Row 3: Food is Berries, Calories is 150"
    )
    grain = item(2, "Row 4: Food is Grain, Calories is 200")
    reply = "50 calories from leaves + 150 calories from berries + 200 calories from grain = 400"
    verdict = verify(reply + " calories [1][2].", [table, grain])
    assert not verdict.refused and "50 + 150 + 200 = 400" in verdict.computed
    assert verify(reply.replace("400", "450") + " calories [1][2].", [table, grain]).refused
    difference = verify("739 - 6 = 733 [1].", [item(1, "Apples 739, Bananas 6")])
    assert not difference.refused and difference.computed == ("739 − 6 = 733",)


def test_a_reply_about_a_name_no_source_writes_is_withdrawn() -> None:
    """France is not among the table's countries: restating it with Czechia's figure is no
    answer. A name written otherwise in a file's name ("BESTBUY") or as a plural counts."""
    table = item(1, "Belgium 11.5 30,689 Brussels | Czech Republic 10.7 78,866 Prague")
    question = "What is the population of France in the EU countries table?"
    verdict = verify("The population of France is 10.7 million [1].", [table], question=question)
    assert verdict.refused and verdict.reason == NOT_SUPPORTED
    reply = "The population of Belgium is 11.5 million [1]."
    assert not verify(reply, [table], question=question.replace("France", "Belgium")).refused
    filing = Evidence(
        1,
        Chunk("c1", "s1", "/docs/BESTBUY_2023_10K.pdf", "Revenue 46,298", Locator(page=40)),
        "Revenue 46,298",
    )
    said = "Best Buy's revenue was 46,298 million [1]."
    assert not verify(said, [filing], question="What was Best Buy's FY2023 revenue?").refused
    # "Form 10-K" names the document, which its pages need not write.
    asked = "What was Best Buy's FY2023 revenue, according to its 2023 Form 10-K?"
    restated = "According to its 2023 Form 10-K, Best Buy's FY2023 revenue was 46,298 million."
    assert not verify(restated, [filing], question=asked).refused


def test_a_count_the_sources_write_in_words_supports_the_figure() -> None:
    prose = item(1, "Table 3-2 lists the nine built-in global variables.")
    assert not verify("DB2 for i supports 9 built-in global variables [1].", [prose]).refused
    assert verify("DB2 for i supports 8 built-in global variables [1].", [prose]).refused


def test_a_figure_in_brackets_is_the_answer_not_a_marker() -> None:
    evidence = [item(1, "Code 660: Astrophysics Science Division. Code 670: Heliophysics.")]
    verdict = verify("The Heliophysics Science Division is Code [670].", evidence)
    assert not verdict.refused and "670" in verdict.text
    assert "[3]" not in verify("Heliophysics is Code 670 [3].", evidence).text  # a marker


def test_a_date_written_with_the_month_in_full_matches_its_abbreviation() -> None:
    from polyrag.answer.citations import word_support

    header = "Date: Mon, 17 Mar 2014 11:15:04"
    assert word_support("The password changed on March 17, 2014.", [header], {"password"}) == 1.0
    assert word_support("It changed on April 17, 2014.", [header]) < 1.0


EXHIBITS = "Exhibit 10.73 Form of Restricted Stock Unit Agreement, filed on February 6, 2017."


def test_a_reply_that_only_points_at_a_place_answers_nothing() -> None:
    question = "How many of Corning's employees were based in the United States in 2020?"
    for reply in (
        "This information is found in Exhibit 10.73 of the Form 10-K filed on February 6, 2017.",
        "For more information, see Exhibit 10.73 [1].",
    ):
        verdict = verify(reply, [item(1, EXHIBITS)], question=question)
        assert verdict.refused and verdict.reason == NO_ANSWER_FOUND, reply
    # An answer beside the pointer stands; the pointer is set aside.
    verdict = verify(
        "Net revenue was 1,577 million in 2019 [1]. Details are provided in Exhibit 10.73 [2].",
        [item(1, REVENUE), item(2, EXHIBITS)],
    )
    assert not verdict.refused and "Exhibit" not in verdict.text


def test_a_place_is_an_answer_when_the_question_asks_for_one() -> None:
    verdict = verify(
        "The information is found in Exhibit 10.73, filed on February 6, 2017 [1].",
        [item(1, EXHIBITS)],
        question="Which exhibit holds the form of restricted stock unit agreement?",
    )
    assert not verdict.refused


GROWTH = "Jordan Brand revenues rose 15% to $5,108 million in fiscal 2021 from $4,006 million."


def test_a_rate_does_not_answer_an_amount_or_a_count() -> None:
    evidence = [item(1, GROWTH)]
    reply = "Jordan Brand revenues rose 15% in fiscal 2021 [1]."
    rate = "By what percentage did Jordan Brand revenues rise in fiscal 2021?"
    assert not verify(reply, evidence, question=rate).refused  # a rate answers a rate
    amount = "By how much did Jordan Brand revenues rise in fiscal 2021, in millions of dollars?"
    assert verify(reply, evidence, question=amount).refused
    # "10-K" writes a 10, not the reply's 10%.
    ten = "Per Nike's 10-K, by how much did Jordan Brand revenues rise in fiscal 2021, in USD?"
    assert verify(
        reply.replace("15%", "10%"), [item(1, GROWTH.replace("15%", "10%"))], question=ten
    ).refused
    count = "How many pairs of Jordan Brand shoes were sold in fiscal 2021?"
    assert verify(reply.replace("15%", "15 percent"), evidence, question=count).refused
    # The amount itself stands, with its rate beside it.
    both = "Jordan Brand revenues rose 1,102 million, or 15%, in fiscal 2021 [1]."
    assert not verify(both, evidence, arithmetic=True, question=amount).refused


def test_a_sentence_whose_own_arithmetic_is_wrong_is_withdrawn() -> None:
    budgets = item(1, "Atlas: 420,000. Borealis: 310,000.")
    question = "What is the difference between the budgets of Atlas and Borealis?"
    wrong = "The difference is 110,000 [1]. That is 420,000 - 310,000 = -110,000 [1]."
    verdict = verify(wrong, [budgets], arithmetic=True, question=question)
    assert not verdict.refused and "-110,000" not in verdict.text and verdict.partial
    right = "The difference is 110,000 [1]. That is 420,000 - 310,000 = 110,000 [1]."
    kept = verify(right, [budgets], arithmetic=True, question=question)
    assert "420,000 - 310,000 = 110,000" in kept.text and not kept.partial
