"""A yes-or-no question about a claim, and the note the model is given with one: the 1.5B agreed with a leading
question ("Is Dallas the capital of Texas?" -> "Yes, Dallas is the capital of Texas.") and refused some it knew
("Did the Titanic sink in 1920?" -> "Sorry, but I can't know that offline.")."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from daemon.engines.history import Message, question_begins

CLAIM_NOTE: Final = (
    "Facts of the past, of places, of people and of science you know, offline too: answer them. A question may "
    "assume something false: check it against what you know, and if it is wrong, begin with No and give the true "
    "fact; agree only with what is true."
)
# NOTE: chosen on the tune half of `talkbox eval answers` (docs/answers.md, "Leading questions"). In the system
# prompt for every question it also made the model refuse suggestions ("What should I cook for my family tonight?"
# -> "I'm sorry, but I can't assist with that."; 30 -> 26 of 33 right): it is given with a yes-or-no question only.
_YES_OR_NO: Final = re.compile(
    r"(?:is|are|was|were|do|does|did|has|have|had|isn't|aren't|wasn't|weren't|don't|doesn't|didn't|hasn't|haven't)"
    r"\b(?! (?:you|i|we|it going to)\b)"
)
"""How a yes-or-no question opens; not one about the box or the user ("do you …", "am I …"), nor the weather."""
_TAG: Final = re.compile(r"\b(?:right|correct|true|isn't it|aren't they|don't they|doesn't it|didn't it|wasn't it)$")
"""A statement asked to be confirmed ("Sydney is the capital of Australia, right?")."""


def asks_yes_or_no(question: str) -> bool:
    """Whether `question` asks yes or no of a claim."""
    said = " ".join(re.findall(r"[\w']+", question.lower().replace("’", "'")))
    return _YES_OR_NO.match(said) is not None or _TAG.search(said) is not None


def system_prompt_for(system_prompt: str, question: str, alone: bool) -> str:
    """The system prompt `question` is asked with: the claim note added to it for a yes-or-no question asked on its
    own (with the conversation, the prompt it shares with the cached one is kept)."""
    return f"{system_prompt} {CLAIM_NOTE}" if alone and asks_yes_or_no(question) else system_prompt


def noted_prefix(system_prompt: str, tokens: Callable[[list[Message]], list[int]]) -> list[int]:
    """The tokens every prompt with the note begins with, up to where the question's words begin."""
    messages: list[Message] = [
        {"role": "system", "content": f"{system_prompt} {CLAIM_NOTE}"},
        {"role": "user", "content": "?"},
    ]
    asked = tokens(messages)
    return asked[: question_begins(tokens, messages, asked)]
