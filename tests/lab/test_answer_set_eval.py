"""One set of questions of answers.toml is found by the line that opens it, up to the next comment or table."""

from __future__ import annotations

from daemon.lab.answer_set_eval import texts_of
from daemon.lab.evaluation.answers import QUESTIONS
from daemon.skills.learned import QUESTIONS_FILE

SOURCE = """
[place]
"What's the capital of Italy?" = ['rome']

[claim]
# Claims to check.
"Is Sydney the capital of Australia?" = ['no', 'canberra']
"Is \\"Oslo\\" Norway's capital?" = ['yes']
# A second set.
"Isn't Sydney the capital of Australia?" = ['no', 'canberra']

[suggest]
"What should I cook?" = ['pasta']
"""


def test_a_set_is_its_questions_after_the_line_that_opens_it_and_no_others() -> None:
    assert texts_of(SOURCE, "[claim]") == ["Is Sydney the capital of Australia?", 'Is "Oslo" Norway\'s capital?']
    assert texts_of(SOURCE, "# A second set") == ["Isn't Sydney the capital of Australia?"]


def test_the_four_sets_of_claims_are_every_claim() -> None:
    source = QUESTIONS_FILE.read_text(encoding="utf-8")
    first, second = texts_of(source, "[claim]"), texts_of(source, "# A second set, written after the first")
    third, fourth = texts_of(source, "# A third set: claims"), texts_of(source, "# A fourth set: what goes around")
    assert (len(first), len(second), len(third), len(fourth)) == (63, 44, 55, 12)
    assert set(first) | set(second) | set(third) | set(fourth) == {q.text for q in QUESTIONS if q.kind == "claim"}
