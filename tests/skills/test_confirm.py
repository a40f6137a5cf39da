"""A misheard request that would undo something is asked about first; a yes does it, a no or anything else does not,
and a yes with nothing asked about is the conversation's (the language model's)."""

from __future__ import annotations

import pytest

from daemon.box.asking import SilentSink
from daemon.skills.clock import BoxClock
from daemon.skills.replies import Reply
from daemon.skills.skills import CONFIRM_WITHIN_S, Skills
from daemon.turn.volume import VolumeSink


class Boot:
    """A boot clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def boot() -> Boot:
    return Boot()


@pytest.fixture
def skills(boot: Boot) -> Skills:
    """The skills with one timer running."""
    box = Skills(BoxClock("system"), VolumeSink(SilentSink()), "boot-a", now_boot=boot)
    box.reminders.timer(600, "", boot(), box.clock.now())
    return box


def said(skills: Skills, text: str) -> Reply | None:
    """What the box replies to `text`, or None when it is a question for the language model."""
    call = skills.route(text)
    return skills.run(call) if call is not None else None


def test_a_misheard_cancel_is_asked_about_and_done_on_yes(skills: Skills) -> None:
    # "Can still my timer." is how Whisper heard "Cancel my timer." (tune half of the routing evaluation)
    assert said(skills, "Can still my timer.") == Reply('Did you mean "cancel my timer"? Say yes, and I will.')
    assert len(skills.reminders.timers()) == 1  # nothing undone yet
    assert said(skills, "yes please") == Reply("10 minute timer cancelled.", changed=True)
    assert skills.reminders.timers() == []
    assert said(skills, "yes") is None  # asked about once: a second yes is the conversation's


@pytest.mark.parametrize("answer", ["no", "nope", "no thanks"])
def test_a_no_keeps_the_timer(skills: Skills, answer: str) -> None:
    said(skills, "Can still my timer.")
    reply = said(skills, answer)
    assert reply is not None and "cancel" not in reply.text.lower()
    assert len(skills.reminders.timers()) == 1
    assert said(skills, "yes") is None


def test_another_request_moves_on_and_a_late_yes_does_nothing(skills: Skills, boot: Boot) -> None:
    said(skills, "Can still my timer.")
    said(skills, "what time is it")  # something else said: the question is dropped
    assert said(skills, "yes") is None and len(skills.reminders.timers()) == 1
    said(skills, "Can still my timer.")
    boot.now += CONFIRM_WITHIN_S + 1
    assert said(skills, "yes") is None and len(skills.reminders.timers()) == 1


def test_a_request_heard_as_said_is_done_at_once(skills: Skills) -> None:
    assert said(skills, "cancel my timer") == Reply("10 minute timer cancelled.", changed=True)
    assert skills.reminders.timers() == []


def test_a_misheard_request_that_undoes_nothing_is_done_at_once(skills: Skills) -> None:
    reply = said(skills, "Set a time, or for ten minutes?")  # read as "set a timer for ten minutes"
    assert reply is not None and reply.text.startswith("A timer for 10 minutes")
    assert len(skills.reminders.timers()) == 2


def test_yes_and_no_with_nothing_asked_about_go_to_the_language_model(skills: Skills) -> None:
    assert [skills.route(text) for text in ("yes", "yes please", "no", "okay", "nope")] == [None] * 5


@pytest.mark.parametrize(
    ("skill", "args"),
    [
        ("volume", {"action": "up"}),
        ("volume", {"action": "down"}),
        ("volume", {"action": "mute"}),
        ("volume", {"action": "unmute"}),
        ("volume", {"action": "set", "level": 40}),
        ("forget", {}),
        ("pace", {"action": "slower"}),
        ("pace", {"action": "faster"}),
        ("pace", {"action": "normal"}),
        ("set_time", {"hour": 19, "minute": 15}),
        ("timer_cancel", {}),
        ("timer_cancel", {"all": True}),
        ("alarm_cancel", {"all": True}),
        ("reminder_cancel", {}),
    ],
)
def test_a_request_is_asked_about_in_words_the_templates_read_as_it(skill: str, args: dict[str, object]) -> None:
    from daemon.skills import intents, values
    from daemon.skills.call import SkillCall

    call = SkillCall(skill, dict(args), read_as="an example sharing no word with it")  # type: ignore[arg-type]
    words = values.asked(call)
    assert words != call.read_as and intents.match(words) == SkillCall(skill, dict(args))  # type: ignore[arg-type]
