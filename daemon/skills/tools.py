"""The language model as a fallback router: a grammar-bound tool call for phrasings no template matched.

llama.cpp samples only tokens the GBNF grammar allows, so even a 135M model cannot write a malformed call: the
output is always one of the lines below, parsed without guessing. It runs only when the sentence names something
a skill does (a timer, the time, the volume...); every other question goes straight to the answer.
"""

from __future__ import annotations

import logging
import re
from typing import Final

from daemon.errors import TalkboxError
from daemon.ports import LanguageModel
from daemon.skills.calc import work_out
from daemon.skills.intents import SkillCall, calc_call
from daemon.skills.money import currency_in

_LOGGER = logging.getLogger(__name__)

GRAMMAR: Final = r"""
root ::= "none" | "time" | "date" | "day" | "repeat" | "help" | "forget" | "stop" | "alarm_list" | "timer_left" |
         "timer_cancel" | "alarm_cancel" | timer | alarm | volume | calc
timer ::= "timer_start " num " " unit
unit ::= "seconds" | "minutes" | "hours"
alarm ::= "alarm_set " hour ":" minute
hour ::= [0-9] | "1" [0-9] | "2" [0-3]
minute ::= [0-5] [0-9]
volume ::= "volume_" ("up" | "down" | "mute" | "unmute")
calc ::= "calculate " num (" " op " " num)+
op ::= "+" | "-" | "*" | "/"
num ::= [0-9] | [1-9] [0-9] | [1-9] [0-9] [0-9] | [1-9] [0-9] [0-9] [0-9]
""".replace("|\n         ", "| ")

INSTRUCTION: Final = """Turn the request into one command, or none if it is a question for you to answer.
Commands: time, date, day, timer_start N minutes, timer_left, timer_cancel, alarm_set HH:MM, alarm_list,
alarm_cancel, volume_up, volume_down, volume_mute, volume_unmute, calculate A + B, repeat, help, forget, stop.
Examples:
Request: could you time ten minutes for me -> timer_start 10 minutes
Request: make it a bit louder -> volume_up
Request: I need to be up at half six -> alarm_set 06:30
Request: what do you get if you multiply 6 by 7 -> calculate 6 * 7
Request: how long do I boil an egg -> none
Request: what time does the sun set -> none
Request: {request} ->"""

MAX_TOKENS: Final = 16
NAMES_A_SKILL: Final = re.compile(
    r"\b(time|clock|date|day|today|timer|alarm|remind|wake|volume|loud\w*|quiet\w*|soft\w*|mute|repeat|again|"
    r"help|forget|stop|cancel|plus|minus|times|divided|multipl\w*|percent|sum|add)\b"
)
_UNIT_S: Final = {"seconds": 1, "minutes": 60, "hours": 3600}


def parse(line: str) -> SkillCall | None:
    """The call a grammar-bound line names; None for "none" (or a line the grammar would not allow)."""
    words = line.strip().split(" ", 1)
    head, rest = words[0], words[1] if len(words) > 1 else ""
    if head in ("time", "date", "day", "repeat", "help", "forget", "stop", "alarm_list", "timer_left"):
        return SkillCall(head)
    if head in ("timer_cancel", "alarm_cancel"):
        return SkillCall(head)
    if head == "timer_start" and (m := re.fullmatch(r"(\d+) (seconds|minutes|hours)", rest)):
        return SkillCall("timer_start", {"seconds": int(m[1]) * _UNIT_S[m[2]]})
    if head == "alarm_set" and (m := re.fullmatch(r"(\d+):(\d\d)", rest)):
        return SkillCall("alarm_set", {"hour": int(m[1]), "minute": int(m[2]), "days": ()})
    if head.startswith("volume_"):
        return SkillCall("volume", {"action": head.removeprefix("volume_")})
    if head == "calculate":
        return calc_call(work_out(rest), currency_in(rest))
    return None


class ToolCaller:
    """Calls the model with the grammar when a sentence names a skill's subject; a SkillCall or None."""

    def __init__(self, responder: LanguageModel) -> None:
        self._responder = responder
        self.calls = 0
        """Times the model was asked (for the evaluation)."""

    def __call__(self, question: str) -> SkillCall | None:
        said = question.lower()
        if len(said) > 200 or not NAMES_A_SKILL.search(said):
            return None
        self.calls += 1
        try:
            line = self._responder.constrained(INSTRUCTION.format(request=question.strip()), GRAMMAR, MAX_TOKENS)
        except TalkboxError as err:  # the answer path reports a broken model; here it only means no skill
            _LOGGER.warning("tool call failed: %s", err.message)
            return None
        _LOGGER.debug("tool call for %r: %r", question, line)
        return parse(line)
