"""A request for one of the box's own jobs that no skill could read: said plainly that nothing was done, and how to ask.

Such a request went to the model, which cannot set anything and yet promised, echoed or gave a phone's steps: asked
with skills off, "set a timer for 4 mins" → "Sure, I can set a timer for 4 minutes."; "remind me to take my pills at
eight pm" → "Sure, I'll remind you to take your pills at eight PM."; "set an alarm for midnight" → "To set an alarm
for midnight, you can follow these steps: 1. Open your device's settings." A person then waits for what nothing
will do. The patterns were written on the tune half of daemon/skills/skill_phrases.toml (docs/answers.md).
"""

from __future__ import annotations

import re
from typing import Final

from daemon.skills.amounts import digits, strip_fillers
from daemon.skills.intents import SkillCall, normalise

SKILL: Final = "unfollowed"
REPLIES: Final = {
    "reminder": "I didn't follow that, so I haven't set or changed any reminder. Say, for example: remind me in 20 "
    "minutes to check the oven, or remind me at 6 pm to call mum.",
    "alarm": "I didn't follow that, so I haven't set or changed any alarm. Say, for example: set an alarm for 7 am, "
    "what alarms are set, or cancel the alarm.",
    "timer": "I didn't follow that, so I haven't set or changed any timer. Say, for example: set a timer for 10 "
    "minutes, how long is left, or cancel the timer.",
    "volume": "I didn't follow that, so my volume is as it was. Say, for example: louder, quieter, or set the volume "
    "to 50 percent.",
    "clock": "I didn't follow that, so my clock is as it was. Say, for example: set the time to seven fifteen pm.",
    "conversation": "I didn't follow that, so I still remember our conversation. To clear it, say: forget our "
    "conversation.",
    "pace": "I didn't follow that, so I speak as fast as before. Say: speak more slowly, or speak faster.",
}
"""What the box says, by the job the request named: nothing done, and words that do it."""

_DOING: Final = (
    r"set|start|make|put|create|add|begin|restart|reset|cancel|stop|delete|remove|clear|kill|end|abort|scrap|"
    r"turn|switch|change|adjust|move|need|want|give|get|rid|another|new|pop|stick|ditch|wipe|disable|silence|forget|"
    r"never mind"
)
_LENGTH: Final = r"\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty|forty|fifty|half"
_UNIT: Final = r"sec(?:ond)?s?|min(?:ute)?s?|hours?|hrs?"
_JOBS: Final = (
    (
        "reminder",
        re.compile(
            r"\bremind(?:er|ers)?\b|\b(?:let me know|tell me|give me a (?:shout|call|nudge|buzz)|ping me) in\b|"
            r"\bdon't let me forget\b"
        ),
    ),
    (
        "alarm",
        re.compile(
            rf"\b(?:{_DOING})\b.*\balarms?\b|\balarms?\b.*\b(?:at|for|\d+|am|pm|o'clock|off|on)\b|"
            r"\bwake (?:me|us)\b|\b(?:get|be) (?:me )?up (?:at|by)\b"
        ),
    ),
    (
        "timer",
        re.compile(
            rf"\b(?:{_DOING})\b.*\btimers?\b|\btimers?\b.*\b(?:for|off|on)\b|\bcount ?down\b|"
            rf"\btimers? (?:{_LENGTH})\b|\b(?:{_UNIT}) timers?\b|"
            rf"\btime (?:me )?(?:for )?(?:{_LENGTH}) (?:\w+ )?(?:{_UNIT})\b"
        ),
    ),
    (
        "volume",
        re.compile(
            rf"\b(?:{_DOING}|up|down)\b.*\bvolume\b|\bvolume\b.*\b(?:up|down|to|at|\d+)\b|"
            r"\b(?:turn|crank|bring|pump) (?:it|that|yourself|you|the sound) (?:up|down)\b|"
            r"^(?:(?:a )?(?:bit|little|lot) )?(?:louder|quieter|softer)\b|\b(?:un)?mute (?:yourself|the sound)\b|"
            r"\bspeak up\b|\bcan't hear you\b|\b(?:max|maximum|full|min|minimum) volume\b|"
            r"\bsound (?:back )?(?:on|off)\b|\byou're (?:too|very|so) (?:quiet|loud)\b|"
            r"\b(?:louder|quieter|softer)(?: (?:please|now|thanks|thank you))?$"
        ),
    ),
    (
        "clock",
        re.compile(
            rf"\b(?:{_DOING}|fix)\b.*\b(?:your|the) clock\b|\b(?:set|change|adjust|correct) the time\b|"
            r"\bthe (?:right |correct |real |actual )?time (?:is now|now is)\b|\bthe (?:right|correct|real) time is\b|"
            r"\b(?:your|the) clock(?:'s| is)\b.*\b(?:wrong|slow|fast|off)\b"
        ),
    ),
    (
        "conversation",
        re.compile(
            r"\bforget (?:everything|what|our|that|all)\b|\b(?:start|begin) (?:again|over|afresh|fresh|from scratch)\b"
            r"|\b(?:clear|wipe|erase|delete|scrap|ditch)\b.*\b(?:conversation|chat|history|slate|memory)\b|"
            r"\bnew conversation\b|\bconversation over\b|"
            r"\b(?:clear|wipe|erase|delete|forget)\b.*\b(?:talked about|told you)\b"
        ),
    ),
    (
        "pace",
        re.compile(
            r"\b(?:speak|talk)\w*\b.*\b(?:slow|slower|slowly|fast|faster|quicker|quickly)\b|"
            r"^(?:please )?slow down(?: please)?$|\b(?:usual|normal) (?:pace|speed)\b"
        ),
    ),
)
_ASKED: Final = re.compile(
    r"^(?:what|what's|why|how|who|where|when|which|whose|should|shall|is|isn't|are|am|do|does|did|was|were|has|"
    r"have|will|would you recommend)\b|\bhow (?:do|can|to|does|would)\b|"
    r"^remind me (?:what|who|whose|how|why|where|which)\b"
)
"""A question, not a request: "how do I set an alarm on my phone", "remind me what a haiku is" are the model's."""
_ELSEWHERE: Final = re.compile(
    r"\b(?:fire|smoke|car|burglar|house|security|intruder|carbon monoxide) alarms?\b|"
    r"\b(?:phone|iphone|android|tv|television|radio|oven|microwave|cooker|computer|laptop|app|watch|fitbit|car)\b"
)
"""Another thing's alarm, timer or volume ("set an alarm on my phone", "the fire alarm went off"): the box's reply
about its own would not fit; the model may tell how."""
_ITS_OWN: Final = frozenset({"alarm", "timer", "volume", "clock"})
"""Jobs another thing has too (a reminder's note may name anything)."""


def job_of(text: str) -> str | None:
    """The box's own job a request names (a key of REPLIES), or None: a question, or no job of the box's."""
    said = normalise(text)
    if not said or len(said) > 200 or _ASKED.search(said):
        return None
    job = next((job for job, pattern in _JOBS if pattern.search(said)), None)
    return None if job in _ITS_OWN and _ELSEWHERE.search(said) else job


_NO_UNIT: Final = re.compile(r"(?:timer|remind me|countdown)(?: (?:for|of|in))? (\d{1,3})")
"""A timer's length said with no unit ("timer for 45"): which unit is asked, once the words are known to end there
(never at a pause: "set a timer for 45 ..." may go on "... minutes")."""


def unfollowed(text: str) -> SkillCall | None:
    """The call that says nothing was done and how to ask, for a request of the box's own jobs no skill read."""
    job = job_of(text)
    said = digits(strip_fillers(normalise(text))).rstrip(". ") if job == "timer" else ""
    if job == "timer" and (bare := _NO_UNIT.search(said)) and bare.end() == len(said):
        return SkillCall(SKILL, {"job": job, "number": int(bare[1])})
    return SkillCall(SKILL, {"job": job}) if job is not None else None


def no_unit(number: int) -> str:
    """What the box says to a timer of `number` said with no unit."""
    return f"{number} what: minutes or seconds? Say, for example: set a timer for {number} minutes."
