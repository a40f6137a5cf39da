"""The everyday skills: each request answered from the box's own clock, timers, alarms, volume and arithmetic."""

from __future__ import annotations

import dataclasses
import logging
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Final, Protocol

from daemon.skills import about_box, asked_for, facts, going_on, honest, intents, pace, unfollowed, values
from daemon.skills.call import int_arg
from daemon.skills.clock import BoxClock
from daemon.skills.intents import SkillCall
from daemon.skills.just_set import JustSet
from daemon.skills.plain_answers import plain_answer
from daemon.skills.reminder_args import alarm_days, next_half
from daemon.skills.reminder_calls import reminder_reply
from daemon.skills.reminder_replies import timer_named
from daemon.skills.reminders import Kind, Reminder, Reminders, boot_clock, say_length
from daemon.skills.replies import FORGOTTEN, OKAY, Reply
from daemon.skills.speech import say_alarm, say_clock, say_days, say_time
from daemon.skills.volume import VolumeControl, change_volume

if TYPE_CHECKING:
    from daemon.ports import RequestReader

_LOGGER = logging.getLogger(__name__)

CONFIRM_FIRST: Final = frozenset(
    {
        "timer_cancel",
        "alarm_cancel",
        "alarm_skip",
        "alarm_move",
        "reminder_cancel",
        "cancel_what",
        "forget",
        "volume",
        "set_time",
    }
    | {"pace", "timer_pause", "timer_change", "change_it"}
)
"""Requests that undo or change something: read loosely from a misheard sentence, they are asked about first."""
NAMING: Final = frozenset({"name", "hour", "minute", "days", "near"})
"""Arguments that only say which timer or alarm a request means."""
WORDED: Final = frozenset({"action", "all"})
"""Arguments the template's own words set ("turn it up", "cancel all timers"), never a number or a name heard."""
ANSWERS: Final = frozenset({"confirm", "decline"})
"""A yes or a no: a skill's only while a misheard request waits for one."""
ANSWERS_ONLY: Final = (
    frozenset({"time", "date", "day", "calculate", "expression", "convert", "help", "offline", "timer_left"})
    | frozenset({"alarm_list", "remind_when", "reminder_list", "chance", "about", unfollowed.SKILL})
    | facts.SKILLS
)
"""Requests that only answer (the time, a sum, a fact, what is left on a timer): they change nothing."""
SNOOZE_WITHIN_S: Final = 30 * 60.0
"""How long after a timer or alarm rang "snooze" still means it (a snooze with nothing rung is said so)."""
CONFIRM_WITHIN_S: Final = 30.0
"""How long a yes still confirms the misheard request the box asked about."""


class Home(Protocol):
    """The user's Home Assistant, reached through its bridge (daemon/home/link.py), for commands the box cannot do."""

    def recognise(self, text: str) -> SkillCall | None:
        """The home command `text` is (skill "home"), or None."""

    async def ask(self, text: str) -> str:
        """What Home Assistant says to `text`, or why it could not be asked."""

    @property
    def attached(self) -> bool:
        """True while its bridge is registered."""

    def status(self) -> dict[str, object]:
        """Whether it is reached."""


class Skills:
    """Routes a request to a skill and runs it; holds the timers and alarms (used on the box's event loop)."""

    def __init__(
        self,
        clock: BoxClock,
        volume: VolumeControl,
        boot: str,
        *,
        now_boot: Callable[[], float] = boot_clock,
        meaning: RequestReader | None = None,
        luck: random.Random | None = None,
        voice: pace.Paced | None = None,
    ) -> None:
        """`luck`: what flips the coins and rolls the dice (the system's randomness unless a test seeds one);
        `voice`: whose pace "speak more slowly" changes (None: it cannot be changed)."""
        self.clock, self.volume, self.now_boot, self.meaning = clock, volume, now_boot, meaning
        self.voice = voice
        self.luck = luck or random.SystemRandom()
        self.reminders = Reminders(boot)
        self.just_set = JustSet(self.reminders, now_boot)
        """The timer or alarm the last request about them set or asked about: what "cancel it" means."""
        self._waiting: tuple[SkillCall, float] | None = None
        """A misheard request waiting for the user's yes, and when it was asked about (boot clock)."""
        self._asked: asked_for.Asked | None = None
        """A timer, alarm or reminder asked for its length or time, which the next words alone may give."""
        self.home: Home | None = None
        """Home Assistant, when the box is linked to one: home commands the skills leave go there."""
        self._rang_at: float | None = None
        """When a timer or alarm last rang (boot clock): what "snooze" means."""
        self._rung: Reminder | None = None
        """The timer or alarm that rang last: what "turn the alarm off" means just after."""
        self.about = about_box.BoxFacts()
        """What the box is, for questions about itself (its model, wake phrase, what it keeps): set once assembled."""

    def route(self, text: str) -> SkillCall | None:
        """The skill a sentence template says `text` asks for, else the one it means (read by meaning), else the
        offline answer to a question about the moment, or None (a question for the language model)."""
        call = intents.match(text) or timer_named(self.reminders, intents.normalise(text))
        if (asked := self._asked_for()) is not None and (call is None or call.skill in asked_for.READ_OTHERWISE):
            # NOTE: the request asked for its length or time before a reading of a bare value: "half six" is then
            # no sum, "make it 10" no change to a timer
            answer = intents.normalise(text)
            completed = asked.completed(answer, intents.match)
            if completed is not None and completed.read_as:
                # NOTE: a word of the answer read as another (misheard): set only after a yes, as said back
                completed = dataclasses.replace(completed, unsure=True, read_as=values.asked(completed))
            call = completed or call or asked.again(answer)
        if call is None and self.meaning is not None:
            call = self.meaning.route(text)
        if call is None:
            call = honest.of_the_moment(intents.normalise(text))
        if self.home is not None and (call is None or call.read_as or call.skill == "offline"):
            # NOTE: the box's own skills win, but not a loose reading of a sentence that names a light as heard,
            # nor "I can't know that offline" for what the home knows (its weather). A question handed to Home
            # Assistant as a whole never takes a loose reading's place: that is a skill request, misheard.
            home = self.home.recognise(text)
            if home is None and call is not None and call.args.get("topic") == "devices" and self.home.attached:
                home = SkillCall("home", {"intent": "device"})  # a device it has no name for: Home Assistant says so
            if home is not None and (call is None or call.skill == "offline" or home.args["intent"] != "question"):
                call = home
        if call is not None and call.skill == "alarm_set" and call.args.get("near") and not call.args.get("note"):
            call = self._next_half(call)  # NOTE: a reminder keeps its hour: "remind me at 6 to ..." is 6 pm
        call = (call and values.seconds_unpointed(call, intents.normalise(text))) or call
        if call is not None and call.skill in ANSWERS and self.waiting() is None:
            return None  # a yes or a no with nothing asked about is the conversation's (the model's)
        if call is not None and call.skill == "stop" and call.args.get("action") == "cancel":
            return self.just_set.cancel(call) or call
        if call is not None and call.skill == "change_it":
            return self.just_set.change(call) or call
        return call

    def unfollowed(self, text: str) -> SkillCall | None:
        """For a request naming one of the box's jobs that nothing routed, the call that says nothing was done and how
        to ask (daemon/skills/unfollowed.py), or None: a question for the language model. After every other reading,
        so that it never stands in the way of one (a second hearing, a confirmation, asking again)."""
        return unfollowed.unfollowed(text)

    def _next_half(self, call: SkillCall) -> SkillCall:
        """An alarm named without its half of the day set for the one the clock shows next once its afternoon has
        passed (reminder_args.next_half), and asked about as that one when unsure."""
        # NOTE: "6:30" said at night is the morning's, and "6:30 tomorrow" always
        a = call.args
        once = bool(a.get("tomorrow")) or "on" in a  # NOTE: "on Monday" too: its first 6:10 is the morning's
        days = () if once else alarm_days(a, None)[0]
        hour = next_half(int_arg(a, "hour"), int_arg(a, "minute"), days, self.wall(), once)
        resolved = dataclasses.replace(call, args={**a, "hour": hour})
        return dataclasses.replace(resolved, read_as=values.asked(resolved)) if call.unsure else resolved

    def answer(self, call: SkillCall) -> Reply | None:
        """The reply to a request that only answers, worked out without doing anything (so it may be prepared
        before the question is known to be over); None for one that acts, a loose reading, or while a yes is
        awaited (any request then moves the conversation on)."""
        if call.skill not in ANSWERS_ONLY or call.read_as or self.waiting() is not None:
            return None
        if call.skill == "remind_when" and asked_for.question(call) is not None:
            return None  # NOTE: asking for a length or a time waits for the answer: only once the question is over
        return self.run(call)

    def finished(self, text: str) -> bool:
        """True if `text` is a command of the box's own that nothing said after a pause would change, given the
        timers and alarms the box holds now."""
        return going_on.finished_command(text, self._same_now)

    def _same_now(self, call: SkillCall, longer: SkillCall) -> bool:
        """True if `longer`, `call` going on to name a timer or alarm, would do the same now: with one of them held
        or none, "the timer" is the one there is ("cancel the timer" need not wait for "... for the eggs"); with none,
        there is nothing to name ("cancel the alarm" need not wait for "... timer")."""
        held = {
            "timer_cancel": self.reminders.timers,
            "timer_left": self.reminders.timers,
            "timer_pause": self.reminders.timers,
            "alarm_cancel": self.reminders.alarms,
        }
        if longer.skill not in held:
            return False
        if longer.skill != call.skill:
            return not held[longer.skill]()
        return set(longer.args) - set(call.args) <= NAMING and len(held[call.skill]()) <= 1

    def heard_enough(self, text: str) -> bool:
        """True for words a second hearing could not make the box act on otherwise: a command of its own, word for
        word, with nothing to fill in ("what time is it", "turn it up"), that nothing said after would change.
        """
        call = self.route(text)
        # NOTE: a slot (a number, a country, a word to spell) is what the final pass hears better: those wait for it.
        # What the template's own words set ("turn it up": up) is heard like the rest of the command.
        return call is not None and set(call.args) <= WORDED and not call.read_as and self.finished(text)

    def waiting(self) -> SkillCall | None:
        """The misheard request the box asked about, while a yes may still confirm it."""
        if self._waiting is not None and self.now_boot() - self._waiting[1] > CONFIRM_WITHIN_S:
            self._waiting = None
        return self._waiting[0] if self._waiting is not None else None

    def _asked_for(self) -> asked_for.Asked | None:
        """The request asked for its length or time, while the words said alone may still complete it."""
        if self._asked is not None and self.now_boot() - self._asked.at > asked_for.ASKED_WITHIN_S:
            self._asked = None
        return self._asked

    def wall(self) -> float | None:
        """The time now if the clock can be trusted, else None."""
        return self.clock.now() if self.clock.state().trusted else None

    def run(self, call: SkillCall, *, last_answer: str = "", forget: Callable[[], None] | None = None) -> Reply:
        """Do what `call` asks and say so."""
        held = {r.id for r in self.reminders.all()}
        reply = self._run(call, last_answer=last_answer, forget=forget)
        self.just_set.note(call, held)
        return reply

    def _run(self, call: SkillCall, *, last_answer: str, forget: Callable[[], None] | None) -> Reply:
        waiting, self._waiting = self.waiting(), None  # asked about once: anything else said moves on
        if call.skill not in ANSWERS_ONLY:
            self._asked = None  # NOTE: a request done meanwhile moves on too; a question answered does not
        if call.read_as and (call.skill in CONFIRM_FIRST or call.unsure):
            # NOTE: a loose reading that would undo something (cancel, forget, mute, reset the clock) is asked
            # about instead of done: "can solve my timer" may be "cancel my timer", or not a request at all.
            self._waiting = (SkillCall(call.skill, dict(call.args)), self.now_boot())
            return Reply(f'Did you mean "{call.read_as}"? Say yes, and I will.')
        if call.skill == "confirm":
            if waiting is None:
                return Reply("There's nothing to say yes to.")
            return self.run(waiting, last_answer=last_answer, forget=forget)
        if call.skill == "decline":
            return Reply("Okay, I won't." if waiting is not None else OKAY)
        a = call.args
        if "impossible" in a and call.skill in ("set_time", "alarm_set", "alarm_cancel", "alarm_move"):
            return Reply(honest.off_the_clock(str(a["impossible"])))
        if "hour" in a and not honest.on_the_clock(int_arg(a, "hour"), int_arg(a, "minute")):
            return Reply(honest.off_the_clock(f"{int_arg(a, 'hour')}:{int_arg(a, 'minute'):02d}"))
        match call.skill:
            case "set_time":
                self.clock.set(int_arg(a, "hour"), int_arg(a, "minute"))
                self.reminders.schedule_alarms(self.clock.now())
                return Reply(f"Thanks. My clock now says {say_time(self.clock.now())}.", changed=True)
            case "timer_start" if a.get("snooze") and not self._rang_lately():
                return Reply(honest.NOTHING_TO_SNOOZE)
            case "alarm_cancel" if self._alarm_rang_lately() and not (a.get("all") or a.get("days") or "hour" in a):
                # NOTE: "turn that alarm off" just after it rang stops it: it deleted a weekday alarm for good
                return self._alarm_stopped()
            case "remind_when" if (asked := asked_for.question(call)) is not None:
                self._asked = asked_for.Asked(str(a["request"]), str(a.get("what", "")), self.now_boot())
                return Reply(asked)
            case "remind_when":
                return Reply(
                    {"timer": honest.TIMER_HOW, "alarm": honest.ALARM_HOW}.get(str(a.get("what")), honest.REMIND_HOW)
                )
            case "volume":
                return change_volume(self.volume, str(a.get("action", "")), a.get("level"))
            case "repeat" if not last_answer:
                return Reply("I haven't said anything yet.")
            case "repeat":
                if self.voice is not None and a.get("pace"):
                    pace.change(self.voice, str(a["pace"]))  # NOTE: said again at the new pace; at the slowest, as is
                return Reply(last_answer)
            case "forget":
                if forget is not None:
                    forget()
                return Reply(FORGOTTEN)
            case "stop":
                return Reply("")
            case "pace" if self.voice is not None:
                return Reply(pace.change(self.voice, str(a.get("action", ""))))
            case "about":
                linked = self.home is not None and self.home.attached
                return Reply(about_box.answer(dict(a), self.about, home=linked))
        if (done := reminder_reply(call, self.reminders, self.now_boot(), self.clock.now(), self.wall())) is not None:
            return done
        if (answered := plain_answer(call, self.wall(), self.luck)) is not None:
            return answered
        return Reply("I can't do that yet.")

    # -- ringing --------------------------------------------------------------------------------------------

    def due(self) -> list[Reminder]:
        """Timers and alarms due now."""
        return self.reminders.due(self.now_boot(), self.wall())

    def seconds_to_next(self) -> float | None:
        """Seconds until the next one is due (None: nothing can come due)."""
        return self.reminders.seconds_to_next(self.now_boot(), self.wall())

    def ringing(self, reminder: Reminder) -> str:
        """Mark `reminder` as rung (before it sounds, so it never rings twice) and what to say."""
        self.reminders.rang(reminder, self.wall())
        self._rang_at, self._rung = self.now_boot(), reminder
        if reminder.note:
            return f"It's time to {reminder.note}."
        return f"Your {reminder.label} is done." if reminder.kind is Kind.TIMER else "It's time: your alarm."

    def _alarm_rang_lately(self) -> bool:
        """Whether the last to ring, within SNOOZE_WITHIN_S, was an alarm."""
        return self._rang_lately() and self._rung is not None and self._rung.kind is Kind.ALARM

    def _alarm_stopped(self) -> Reply:
        """What "turn the alarm off" says just after an alarm rang: it has stopped, and whether it rings again."""
        assert self._rung is not None
        again = next((r for r in self.reminders.alarms() if r.id == self._rung.id), None)
        if again is None:
            return Reply("The alarm has stopped.")
        at = say_clock(again.hour, again.minute)
        kept = say_alarm(again.hour, again.minute, again.days, again.once)
        return Reply(f"The alarm has stopped. It is still set for {kept}: to remove it, say cancel the {at} alarm.")

    def _rang_lately(self) -> bool:
        """Whether a timer or alarm rang within SNOOZE_WITHIN_S."""
        return self._rang_at is not None and self.now_boot() - self._rang_at <= SNOOZE_WITHIN_S

    def status(self) -> dict[str, object]:
        """For `talkbox status` and /status: the clock's trust, timers with what is left, alarms, volume."""
        now = self.now_boot()
        return {
            "clock": str(self.clock.state().source),
            "timers": ", ".join(f"{t.label} {say_length(t.left_s(now))} left" for t in self.reminders.timers()),
            "alarms": ", ".join(f"{r.label} {say_days(r.days, r.once)}".strip() for r in self.reminders.alarms()),
            "volume": 0 if self.volume.muted else self.volume.level,
        } | ({"homeassistant": self.home.status()} if self.home is not None else {})

    def settings(self) -> dict[str, str | int | float | bool]:
        """What the state file keeps: the volume, the pace of the voice and a clock the user set."""
        kept: dict[str, str | int | float | bool] = {
            "volume": self.volume.level,
            "muted": self.volume.muted,
            "clock_offset_s": round(self.clock.offset_s, 3),
            "clock_set_on_boot": self.clock.set_on_boot,
        }
        if self.voice is not None:
            kept["pace"] = self.voice.pace
        return kept
