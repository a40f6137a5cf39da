"""The skills without the box: routing on the tuning half, exact sums, timers and alarms across restarts."""

from __future__ import annotations

import datetime
import re

import pytest

from daemon.box.asking import SilentSink
from daemon.skills import clock as clock_module
from daemon.skills.calc import calculate, convert
from daemon.skills.call import SkillCall
from daemon.skills.clock import BoxClock
from daemon.skills.honest import UNSET_CLOCK
from daemon.skills.intents import match
from daemon.skills.reminder_replies import missed_text
from daemon.skills.reminders import Kind, Reminders, next_ring
from daemon.skills.replies import NOTHING_SET, STOCK_REPLIES
from daemon.skills.skills import Skills
from daemon.skills.tools import GRAMMAR, parse
from daemon.skills.values import read_values
from daemon.turn.volume import VolumeSink


def _skills(trust: str = "system", boot: str = "boot-a", now_boot: float = 1000.0) -> Skills:
    return Skills(BoxClock(trust), VolumeSink(SilentSink()), boot, now_boot=lambda: now_boot)


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("seventeen times twenty three", 391.0),
        ("two hundred and fifty divided by five", 50.0),
        ("nine minus twelve", -3.0),
        ("15 percent of 80", 12.0),
        ("square root of 81", 9.0),
        ("2 + 2", 4.0),
        ("half of three hundred", 150.0),
        ("a quarter of 200", 50.0),
        ("double 21", 42.0),
        ("add twelve and thirty", 42.0),
        ("add one hundred and five and two", 107.0),
        ("multiply six by eleven", 66.0),
        ("subtract 4 from 10", 6.0),
        ("divide 2 into 10", 5.0),
    ],
)
def test_sums_are_exact(said: str, value: float) -> None:
    assert calculate(said) == value


def test_words_that_are_not_a_sum_are_not_one() -> None:
    assert calculate("the capital of france") is None
    assert calculate("half of a football pitch") is None
    assert calculate("five") is None
    assert calculate("1 / 0") is None
    assert calculate("9 to the power of 999") is None  # refused, not computed for ever
    assert calculate("add salt to the soup") is None
    assert calculate("divide the cake by four") is None


@pytest.mark.parametrize(
    "said", ["what is 20-20 vision", "what is 3 times the speed of light", "what's 10 percent of nothing"]
)
def test_numbers_among_other_words_are_no_sum(said: str) -> None:
    # NOTE: "What is 20-20 vision?" was worked out as 20 - 20: "That's 0."
    call = match(said)
    assert call is None or call.skill != "calculate", call


def test_conversions_use_real_units() -> None:
    litre = convert("a litre", "cups")
    assert litre is not None and round(litre.value, 2) == 4.23 and litre.spoken() == "1 litre is 4.23 cups."
    hot = convert("100 degrees fahrenheit", "celsius")
    assert hot is not None and round(hot.value, 2) == 37.78
    assert convert("the capital", "france") is None
    assert convert("a litre", "grams") is None  # volume is not mass


@pytest.mark.parametrize(
    ("amount", "unit", "said"),
    [
        ("3 litres", "pints", "3 litres is 6.34 US pints."),
        ("3 litres", "uk pints", "3 litres is 5.28 imperial pints."),
        ("a gallon", "litres", "1 US gallon is 3.79 litres."),
        ("2 litres", "imperial gallons", "2 litres is 0.44 imperial gallons."),
    ],
)
def test_a_pint_or_a_gallon_says_whose_it_is(amount: str, unit: str, said: str) -> None:
    # A British pint is a fifth larger than an American one: a bare "pint" is said to be the American.
    conversion = convert(amount, unit)
    assert conversion is not None and conversion.spoken() == said


@pytest.mark.parametrize(
    "said",
    [
        "would you mind set a timer for ten minutes",
        "I'd like you to set a timer for ten minutes",
        "do me a favour and set a timer for ten minutes",
        "set a timer for ten minutes if you don't mind",
    ],
)
def test_a_command_asked_politely_is_the_command(said: str) -> None:
    assert match(said) == match("set a timer for ten minutes")
    assert match("what is the capital of peru okay") == match("what is the capital of peru")


@pytest.mark.parametrize("said", ["hey box what time is it", "box, what time is it", "so what time is it then"])
def test_the_box_named_or_a_request_joined_on_is_the_request(said: str) -> None:
    assert match(said) == match("what time is it")


@pytest.mark.parametrize(
    ("said", "action"),
    [("you're too quiet", "up"), ("it's too soft", "up"), ("too loud", "down"), ("that's way too loud", "down")],
)
def test_too_quiet_turns_it_up_and_too_loud_down(said: str, action: str) -> None:
    call = match(said)
    assert call is not None and (call.skill, call.args.get("action")) == ("volume", action)


@pytest.mark.parametrize(
    ("heard", "meant"),
    [
        ("What is 1,000-1?", "what is a thousand minus one"),
        ("Set an alarm 4 6 tomorrow morning.", "set an alarm for 6 tomorrow morning"),
        ("set a timer 4 5 minutes", "set a timer for five minutes"),
        ("Let's start the conversation over.", "forget our conversation"),
    ],
)
def test_what_whisper_writes_for_a_quick_word_is_read_as_said(heard: str, meant: str) -> None:
    # "1,000-1" is a minus, a "4" before a number after "alarm" or "timer" is "for" (it was set for 4 o'clock).
    assert match(heard) is not None and match(heard) == match(meant)


def test_an_unset_clock_never_states_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # NOTE: the kernel's NTP state is the hardware edge here: this machine may or may not be synchronised.
    monkeypatch.setattr(clock_module, "ntp_synchronised", lambda: False)
    monkeypatch.setattr(clock_module, "rtc_set_the_clock", lambda rtc=None: False)
    skills = _skills(trust="auto")
    assert not skills.clock.state().trusted
    assert skills.run(match("what time is it")).text == UNSET_CLOCK  # type: ignore[arg-type]
    alarm = skills.run(match("wake me up at seven thirty"))  # type: ignore[arg-type]
    assert "can't ring until my clock is set" in alarm.text
    assert skills.reminders.seconds_to_next(1000.0, skills.wall()) is None  # it waits for a trusted clock
    said = skills.run(match("set the time to seven fifteen pm"))  # type: ignore[arg-type]
    assert said.changed and "seven fifteen pm" in said.text
    assert skills.clock.state().source is clock_module.Source.USER
    assert skills.run(match("what time is it")).text.startswith("It's seven")  # type: ignore[arg-type]
    assert skills.reminders.alarms()[0].ends_wall > 0  # the alarm got its ring time once the clock was set


def test_a_timer_set_for_the_eggs_is_the_egg_timer() -> None:
    # NOTE: "Add two minutes to the egg timer." once got "There is no egg timer." just after "... for the eggs"
    skills = _skills()
    assert "for 3 minutes" in skills.run(match("set a timer for 3 minutes for the eggs")).text  # type: ignore[arg-type]
    added = skills.run(match("add two minutes to the egg timer")).text  # type: ignore[arg-type]
    assert added.endswith("now has 5 minutes left.")
    again = skills.run(match("set an egg timer for 4 minutes")).text  # type: ignore[arg-type]
    assert again.startswith("There is already") and len(skills.reminders.timers()) == 1
    assert skills.run(match("cancel the egg timer")).text.endswith("cancelled.")  # type: ignore[arg-type]
    assert skills.reminders.timers() == []


def test_timers_run_on_the_boot_clock_and_can_be_named_asked_and_cancelled() -> None:
    skills = _skills()
    assert "pasta timer for 8 minutes" in skills.run(match("set a pasta timer for 8 minutes")).text  # type: ignore[arg-type]
    skills.run(match("set a timer for ten minutes"))  # type: ignore[arg-type]
    left = skills.run(match("how much time is left on the pasta timer")).text  # type: ignore[arg-type]
    assert left == "Pasta timer has 8 minutes left."
    assert "Which one?" in skills.run(match("cancel the timer")).text  # type: ignore[arg-type]
    assert skills.run(match("cancel the pasta timer")).text == "Pasta timer cancelled."  # type: ignore[arg-type]
    assert [t.seconds for t in skills.reminders.timers()] == [600]
    skills.run(match("set a timer for an hour and a half"))  # type: ignore[arg-type]
    # NOTE: named by their length as people name them ("10 minutes timer" read as a slip)
    assert [t.label for t in skills.reminders.timers()] == ["10 minute timer", "1 hour 30 minute timer"]


def test_cancel_everything_says_what_is_set_and_cancels_only_the_kinds_named() -> None:
    # NOTE: the model answered "Sorry, but I can't assist with that."; one loose word never wipes the morning's alarm.
    skills = _skills()
    assert skills.run(match("cancel everything")).text == NOTHING_SET  # type: ignore[arg-type]
    skills.run(match("set a timer for ten minutes"))  # type: ignore[arg-type]
    skills.run(match("set an alarm for 7 am"))  # type: ignore[arg-type]
    skills.run(match("set an alarm for 8 am"))  # type: ignore[arg-type]
    said = skills.run(match("cancel it all")).text  # type: ignore[arg-type]
    assert said == "One timer and 2 alarms are set. To cancel them, say cancel all timers or cancel all alarms."
    assert (len(skills.reminders.timers()), len(skills.reminders.alarms())) == (1, 2)
    assert skills.run(match("cancel all my alarms and timers")).text == "All timers and alarms cancelled."  # type: ignore[arg-type]
    assert skills.reminders.all() == []


def test_the_hour_asked_for_is_the_time_never_an_hour_on_a_timer() -> None:
    # NOTE: "could you give me the hour" added an hour to a timer ("No timers are running. For how long?").
    assert match("could you give me the hour") == SkillCall("time")
    call = match("give the timer another five minutes")
    assert call is not None and (call.skill, call.args["seconds"]) == ("timer_add", 300)


def test_cancel_the_timer_waits_for_a_name_only_while_a_name_could_choose() -> None:
    skills = _skills()
    # None running, or one: "the timer" is the one there is, and "... for the eggs" would change nothing.
    assert skills.finished("Cancel the timer.") and skills.finished("Cancel the alarm.")
    skills.run(match("set a tea timer for 3 minutes"))  # type: ignore[arg-type]
    assert skills.finished("Cancel the timer.") and skills.finished("How long is left on the timer?")
    started = skills.run(match("set an egg timer for 5 minutes")).text  # type: ignore[arg-type]
    assert started == "An egg timer for 5 minutes, starting now."
    assert not skills.finished("Cancel the timer.")  # ... "for the eggs": which one it cancels
    assert not skills.finished("How long is left on the timer?")
    assert not skills.finished("Cancel the alarm.")  # ... "timer": a timer called alarm may be one of them
    skills.run(match("cancel all timers"))  # type: ignore[arg-type]
    assert skills.finished("Cancel the alarm.")
    skills.run(match("set an alarm for 7 am"))  # type: ignore[arg-type]
    assert skills.finished("Cancel the alarm.")  # the one there is
    skills.run(match("set an alarm for 8 am"))  # type: ignore[arg-type]
    assert not skills.finished("Cancel the alarm.")  # ... "for 7"
    assert not skills.finished("Set an alarm for 7.")  # ... "30": never closed by what the box holds
    assert skills.finished("What time is it?")


def test_a_command_heard_well_enough_needs_no_second_hearing_unless_it_carries_a_heard_slot() -> None:
    skills = _skills()
    # The template's own words say what to do: the quick decode's words are the command.
    assert skills.heard_enough("What time is it?") and skills.heard_enough("Turn it up.")
    assert skills.heard_enough("Mute yourself.") and skills.heard_enough("Cancel all timers.")
    # A number, a name or a word to spell is what the final pass hears better.
    assert not skills.heard_enough("Set the volume to five.")
    assert not skills.heard_enough("How do you spell necessary?")
    # Not a command, or one that may still go on ("... 30").
    assert not skills.heard_enough("Why is the sky blue?") and not skills.heard_enough("Set an alarm for 7.")


def test_the_replies_voiced_ahead_are_the_ones_the_skills_give() -> None:
    skills = _skills()
    said = [skills.run(match(text)).text for text in ("cancel the timer", "cancel the alarm", "what are my alarms")]  # type: ignore[arg-type]
    skills.volume.level = 0
    said += [skills.run(match("turn it up")).text for _ in range(11)]  # type: ignore[arg-type]
    said += [skills.run(match(text)).text for text in ("turn it down", "set the volume to 500 percent")]  # type: ignore[arg-type]
    skills.run(match("set an alarm for 7 am"))  # type: ignore[arg-type]
    said.append(skills.run(match("cancel the alarm")).text)  # type: ignore[arg-type]
    for timer in ("set a tea timer for 3 minutes", "set an egg timer for 5 minutes"):
        skills.run(match(timer))  # type: ignore[arg-type]
    said.append(skills.run(match("cancel all timers")).text)  # type: ignore[arg-type]
    assert set(said) <= set(STOCK_REPLIES), set(said) - set(STOCK_REPLIES)
    assert len(set(said)) >= 14  # every volume a step reaches, the limits, nothing held, all cancelled


def test_a_timer_that_ended_while_the_box_was_off_is_announced_once() -> None:
    before = _skills(boot="boot-a", now_boot=1000.0)
    before.run(match("set an egg timer for 5 minutes"))  # type: ignore[arg-type]
    saved = before.reminders.to_plain()
    # The box comes back on the same boot after the timer ended (the daemon was stopped meanwhile).
    after = Reminders("boot-a")
    missed = after.restore(saved, now_boot=2000.0, now_wall=None)
    assert [r.label for r in missed] == ["egg timer"] and len(after) == 0
    assert missed_text(missed) == "Your egg timer was due while I was off."
    # A reboot with no trusted clock: nobody knows how long the box was off, so it is taken to have ended.
    assert len(Reminders("boot-b").restore(saved, now_boot=5.0, now_wall=None)) == 1


def test_a_timer_still_running_after_a_reboot_keeps_its_end_by_a_trusted_clock() -> None:
    reminders = Reminders("boot-a")
    timer = reminders.timer(600, "tea", now_boot=100.0, now_wall=50_000.0)
    again = Reminders("boot-b")
    assert again.restore(reminders.to_plain(), now_boot=10.0, now_wall=50_100.0) == []
    assert again.timers()[0].left_s(10.0) == pytest.approx(500.0)
    assert timer.kind is Kind.TIMER


def test_a_repeating_alarm_moves_to_its_next_day_when_it_rings() -> None:
    monday_9am = datetime.datetime(2026, 11, 30, 9, 0).astimezone().timestamp()
    ring = next_ring(7, 30, (0, 1, 2, 3, 4), monday_9am)
    assert datetime.datetime.fromtimestamp(ring).strftime("%a %H:%M") == "Tue 07:30"
    friday_noon = datetime.datetime(2026, 12, 4, 12, 0).astimezone().timestamp()
    assert datetime.datetime.fromtimestamp(next_ring(7, 30, (0, 1, 2, 3, 4), friday_noon)).strftime("%a") == "Mon"
    reminders = Reminders("boot-a")
    alarm = reminders.alarm(7, 30, (0, 1, 2, 3, 4), monday_9am)
    reminders.rang(alarm, ring)
    assert reminders.alarms()[0].ends_wall > ring  # not rung twice: it now waits for Wednesday


def test_volume_changes_by_voice_and_is_kept_in_the_settings() -> None:
    skills = _skills()
    assert skills.run(match("turn it down")).text == "Volume 90."  # type: ignore[arg-type]
    assert skills.run(match("set the volume to fifty percent")).text == "Volume 50."  # type: ignore[arg-type]
    assert skills.run(match("mute")).text == ""  # type: ignore[arg-type]
    assert skills.volume.muted and skills.settings()["volume"] == 50 and skills.settings()["muted"] is True
    skills.run(match("unmute"))  # type: ignore[arg-type]
    # NOTE: the idiom, not 11 of 100 (which turned the box down when asked to turn it up)
    assert skills.run(match("turn it up to eleven")).text == skills.run(match("set the volume to 100")).text  # type: ignore[arg-type]
    assert skills.volume.level == 100
    assert skills.run(match("set the volume to 11 percent")).text == "Volume 11."  # type: ignore[arg-type]


def test_an_alarm_named_without_its_half_of_the_day_is_cancelled_or_moved_at_either_half() -> None:
    skills = _skills()
    for said in ("set an alarm for 7 pm", "set an alarm for 9 am", "set an alarm for 9 pm"):
        skills.run(match(said))  # type: ignore[arg-type]
    assert skills.run(match("cancel the 7 alarm")).text == "Alarm cancelled."  # type: ignore[arg-type]
    assert skills.run(match("cancel my 9 o'clock alarm")).text == (  # type: ignore[arg-type]
        "Alarms are set for nine am and nine pm. Say which one to cancel."
    )
    assert skills.run(match("cancel the 8 alarm")).text == "There is no alarm at eight."  # type: ignore[arg-type]
    assert skills.run(match("cancel the 9 pm alarm")).text == "Alarm cancelled."  # type: ignore[arg-type]
    assert [(a.hour, a.minute) for a in skills.reminders.alarms()] == [(9, 0)]
    assert skills.run(match("cancel the 7 am alarm")).text == "There is no alarm at seven am."  # type: ignore[arg-type]
    assert skills.run(match("set an alarm for 9:30 pm")).text == "Alarm set for nine thirty pm."  # type: ignore[arg-type]
    assert skills.run(match("move the 9 alarm to 8")).text == "Your alarm is now eight am, not nine am."  # type: ignore[arg-type]
    assert skills.run(match("move the 9:30 alarm to 10")).text == (  # type: ignore[arg-type]
        "Your alarm is now ten pm, not nine thirty pm."
    )
    assert skills.run(match("move the 3 alarm to 4")).text == "There is no alarm at three."  # type: ignore[arg-type]


def _at(skills: Skills, hour: int, minute: int) -> Skills:
    """`skills` with its clock reading `hour`:`minute` today."""
    now = datetime.datetime.now()
    skills.clock.offset_s = now.replace(hour=hour, minute=minute).timestamp() - now.timestamp()
    return skills


@pytest.mark.parametrize(
    ("now", "said", "reply"),
    [
        ((23, 0), "set an alarm for 6:30", "Alarm set for six thirty am."),  # was 6:30 pm, tomorrow evening
        ((23, 0), "set an alarm for six thirty tomorrow", "Alarm set for six thirty am on {tomorrow}."),
        (
            (18, 30),
            "set an alarm for 6:30",
            "Alarm set for six thirty am.",
        ),  # 6:30 pm is now: the next is the morning's
        ((14, 0), "set an alarm for 6:30", "Alarm set for six thirty pm."),  # still ahead today
        ((14, 0), "set an alarm for 5", "Alarm set for five pm."),
        ((23, 0), "set an alarm for 6 pm", "Alarm set for six pm."),  # said: kept
        ((23, 0), "set an alarm for 6 on mondays", "Alarm set for six pm every Monday."),  # named days: no next one
        ((23, 0), "remind me at 6 to take the bins out", "OK. At six pm, I'll remind you to take the bins out."),
    ],
)
def test_an_alarm_named_without_its_half_is_the_next_the_clock_shows(
    now: tuple[int, int], said: str, reply: str
) -> None:
    skills = _at(_skills(), *now)
    tomorrow = datetime.datetime.fromtimestamp(skills.clock.now() + 86_400).strftime("%A")
    assert skills.run(skills.route(said)).text == reply.format(tomorrow=tomorrow)  # type: ignore[arg-type]


def test_an_alarm_or_reminder_asked_for_again_is_not_set_twice() -> None:
    skills = _skills()
    said = ("set an alarm for 6:30 am tomorrow", "wake me up at 7 on weekdays", "remind me at 5 pm to call mum")
    assert [skills.run(match(s)).changed for s in said] == [True, True, True]  # type: ignore[arg-type]
    again = [skills.run(match(s)) for s in ("set an alarm for 6:30 am tomorrow", "set an alarm for 7 am every weekday")]  # type: ignore[arg-type]
    assert [r.text.startswith("An alarm is set for") and r.text.endswith("already.") for r in again] == [True, True]
    assert skills.run(match(said[2])).text == "I'll already remind you to call mum at five pm."  # type: ignore[arg-type]
    assert not any(r.changed for r in again) and len(skills.reminders.alarms()) == 3
    assert skills.run(match("set an alarm for 7 am")).changed  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("how long on the pasta", "pasta"),  # went to the model, with a pasta timer running
        ("how much longer for the pasta", "pasta"),
        ("how much time on the eggs", "eggs"),
        ("how long for the pasta", None),  # a cook's question
        ("how long on the beach should I stay", None),
    ],
)
def test_the_time_left_on_a_timer_is_asked_by_its_name_alone(said: str, name: str | None) -> None:
    call = match(said)
    assert (None if call is None else (call.skill, call.args.get("name"))) == (("timer_left", name) if name else None)


def test_asked_how_loud_it_is_the_box_says_and_changes_nothing() -> None:
    skills = _skills()
    asked = ("what's the volume at", "how loud can you go", "what's the maximum volume", "are you muted")
    assert [skills.run(match(q)).text for q in asked] == ["My volume is 100: as loud as I go."] * 4  # type: ignore[arg-type]
    skills.run(match("set the volume to 40"))  # type: ignore[arg-type]
    skills.run(match("mute"))  # type: ignore[arg-type]
    assert skills.run(match("what volume are you on")).text == (  # type: ignore[arg-type]
        "I'm muted. Say unmute, and I'll speak at volume 40, of 0 to 100."
    )
    skills.run(match("unmute"))  # type: ignore[arg-type]
    assert skills.run(match("how loud are you")).text == "My volume is 40, of 0 to 100."  # type: ignore[arg-type]
    assert skills.volume.level == 40 and match("what is the loudest animal") is None


def test_a_tool_call_line_is_parsed_and_the_grammar_names_every_command() -> None:
    assert parse("timer_start 10 minutes") == match("set a timer for ten minutes")
    assert parse("alarm_set 6:30") is not None and parse("none") is None
    assert parse("calculate 6 * 7").args == {"value": 42.0}  # type: ignore[union-attr]
    for command in re.findall(r'"([a-z_]+)"', GRAMMAR.split("\n")[1]):
        assert command == "none" or parse(command) is not None or command in ("timer_cancel", "alarm_cancel")


@pytest.mark.parametrize(
    ("heard", "kept"),
    [
        ("Come again, come again, come again, come again, come", "Come again,"),
        ("I'm how many milliliters in a cup. I'm how many milliliters", "I'm how many milliliters in a cup."),
        ("what is what is what is", "what is"),
        ("Is it very very cold?", "Is it very very cold?"),
        ("Why do we need sleep?", "Why do we need sleep?"),
    ],
)
def test_a_phrase_the_recogniser_looped_on_is_heard_once(heard: str, kept: str) -> None:
    from daemon.engines.decoder_loops import without_restart

    assert without_restart(heard) == kept


@pytest.mark.parametrize(
    ("said", "skill", "args"),
    [
        ("pause the countdown", "timer_pause", {"resume": False}),  # was read by meaning as "stop the countdown"
        ("resume the countdown", "timer_pause", {"resume": True}),
        ("start a countdown for three minutes", "timer_start", {"seconds": 180}),
        ("how long is left on the countdown", "timer_left", {}),
        ("cancel my countdown", "timer_cancel", {}),
    ],
)
def test_a_countdown_is_the_timer(said: str, skill: str, args: dict[str, object]) -> None:
    call = match(said)
    assert call is not None and (call.skill, call.args) == (skill, args)


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("put a timer for seven minutes", None),
        ("put on a timer for five minutes", None),
        ("make a pasta timer for eight minutes", "pasta"),
        ("give me a timer for ten minutes", None),
        ("is it possible to set a timer for five minutes", None),
        ("could you possibly set a timer for five minutes", None),
        ("I want a pasta timer for 8 minutes", "pasta"),
        ("set a six minute egg timer", "egg"),  # its length and name side by side: "egg" was dropped as noise
        ("start a two hour roast chicken timer", "roast chicken"),
        ("set a 10 minute long timer", None),
        ("set a 5 minute or so timer", None),
    ],
)
def test_other_ways_to_start_a_timer_are_no_part_of_its_name(said: str, name: str | None) -> None:
    call = match(said)
    assert call is not None and call.skill == "timer_start"
    assert call.args.get("name") == name


@pytest.mark.parametrize(
    ("said", "args"),
    [
        ("set a timer for the rice for twelve minutes", {"seconds": 720, "name": "rice"}),
        ("please could you give me an hour and a half for the roast", {"seconds": 5400, "name": "roast"}),
        ("a timer i need for 45 seconds", {"seconds": 45}),
    ],
)
def test_a_timer_read_by_meaning_takes_its_duration_and_name_from_anywhere(said: str, args: dict[str, object]) -> None:
    call = read_values("timer_start", said)
    assert call is not None and call.args == args


def test_a_request_read_by_meaning_with_no_value_in_it_is_none() -> None:
    assert read_values("timer_start", "set a timer for the rice") is None
    assert read_values("alarm_set", "wake me up early") is None
    assert read_values("set_time", "your clock is wrong") is None


@pytest.mark.parametrize(
    ("said", "at"),
    [
        ("set an alarm for six thirty on weekdays", (6, 30)),  # every working day: someone is woken
        ("alarm at half six every weekday", (6, 30)),
        ("set an alarm for 5 pm on weekdays", (17, 0)),  # said: kept
        ("set an alarm for six thirty", (18, 30)),  # once, unmarked: an alarm at 1 to 6 is the afternoon's
        ("set an alarm for 3 every day", (15, 0)),
    ],
)
def test_an_alarm_every_working_day_is_in_the_morning_unless_said_otherwise(said: str, at: tuple[int, int]) -> None:
    call = match(said)
    assert call is not None and call.skill == "alarm_set"
    assert (call.args["hour"], call.args["minute"]) == at


@pytest.mark.parametrize(
    ("said", "skill"),
    [
        ("hiya what time is it", "time"),
        ("scrap my alarm", "alarm_cancel"),
        ("ditch the pasta timer", "timer_cancel"),
        ("I don't need that reminder any more", "reminder_cancel"),
        ("give me a shout in twenty minutes", "timer_start"),
        ("go through my reminders please", "reminder_list"),
        ("that'll do thanks", "stop"),
        ("run that by me again", "repeat"),
        ("wipe the slate clean", "forget"),
        ("how do I use this", "help"),
    ],
)
def test_everyday_wordings_reach_their_skill(said: str, skill: str) -> None:
    # From the seventh set of `talkbox eval skills` phrases, tune half: what people say that no template took.
    call = match(said)
    assert call is not None and call.skill == skill, call


@pytest.mark.parametrize(
    ("said", "skill"),
    [
        ("When's sunset?", "offline"),
        ("How far's Paris from London?", "distance"),
        ("I've got to get up at 6.", "alarm_set"),
        ("I'd like a wake-up call at 7.", "alarm_set"),
        ("I'd like the pasta timer to be 10 minutes.", "timer_change"),
    ],
)
def test_a_word_said_short_reaches_the_skill_its_long_form_does(said: str, skill: str) -> None:
    # NOTE: a template's "(is|'s)" never matched "when's": the short form went to the model
    call = match(said)
    assert call is not None and call.skill == skill, call


def test_the_volume_put_on_a_level_is_set_to_it() -> None:
    call = match("put the volume on six")
    assert call is not None and (call.skill, call.args.get("action"), call.args.get("level")) == ("volume", "set", 60)


@pytest.mark.parametrize(
    ("said", "seconds", "name"),
    [
        (
            "Set a timer for pasta for 11 minutes.",
            660,
            "pasta",
        ),  # was a nameless timer: "cancel the pasta timer" failed
        ("start a timer for the rice for twenty minutes", 1200, "rice"),
        ("set a timer for three quarters of an hour", 2700, None),  # a length, never a name
    ],
)
def test_a_timer_named_before_its_length_carries_its_name(said: str, seconds: int, name: str | None) -> None:
    call = match(said)
    assert call is not None and (call.skill, call.args.get("seconds"), call.args.get("name")) == (
        "timer_start",
        seconds,
        name,
    )


@pytest.mark.parametrize(
    ("said", "action"),
    [
        ("Take yourself off mute.", "unmute"),  # read as mute
        ("turn the mute off", "unmute"),  # read as a question about other devices
        ("Un-mute yourself.", "unmute"),
        ("you can unmute now", "unmute"),
        ("stop being muted", "unmute"),
        ("sound back on please", "unmute"),
        ("put yourself on mute", "mute"),
        ("mute on", "mute"),
    ],
)
def test_mute_is_told_from_its_undoing(said: str, action: str) -> None:
    call = match(said)
    assert call is not None and (call.skill, call.args.get("action")) == ("volume", action)


@pytest.mark.parametrize(
    ("said", "level"),
    [("turn the volume down to 30 percent", 30), ("bring it up to 80", 80), ("lower the volume to 2", 20)],
)
def test_a_volume_turned_up_or_down_to_a_level_is_set_to_it(said: str, level: int) -> None:
    call = match(said)
    assert call is not None and (call.skill, call.args.get("action"), call.args.get("level")) == (
        "volume",
        "set",
        level,
    )


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("what's 20 percent off 50 pounds", 40.0),  # the model: "$10"
        ("what is 50 minus 20 percent", 40.0),  # was 30 (50 - 20)
        ("50 plus 10 percent", 55.0),
        ("what's a 15 percent tip on 80 dollars", 12.0),
        ("20 percent of 50", 10.0),
    ],
)
def test_a_share_taken_off_or_added_is_of_the_amount(said: str, value: float) -> None:
    call = match(said)
    assert call is not None and call.skill == "calculate" and call.args["value"] == pytest.approx(value)


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("What's 15 percent of 80 dollars?", "That's 12 dollars."),  # was "That's 12."
        ("what's 20 percent off 50 pounds", "That's 40 pounds."),
        ("what's a 15 percent tip on $45", "That's 6 dollars and 75 cents."),
        ("what is 10 percent of 10 euros", "That's 1 euro."),
        ("what is 5 percent of 3 dollars", "That's 15 cents."),
        ("what's 25 percent of 50 pounds", "That's 12.5 pounds."),  # a weight, may be: in decimals, right either way
        ("10 percent of 30 quid", "That's 3 pounds."),
        ("what is 10 percent of 1234 yen", "That's 123 yen."),
        ("20 percent of 50", "That's 10."),
    ],
)
def test_a_sum_of_money_is_said_in_its_currency(said: str, reply: str) -> None:
    skills = _skills()
    call = match(said)
    assert call is not None and skills.run(call).text == reply


def test_a_word_beside_a_number_is_never_read_as_a_number_word() -> None:
    assert match("what is 50 cents times 3") is None  # read as "50 six times 3": "That's 168."


def test_an_alarm_is_moved_not_set_again_beside_it() -> None:
    # NOTE: "Change my alarm to 7:30." set a second alarm beside the first (read by meaning as one to set)
    skills = _skills()

    def said(text: str) -> str:
        return skills.run(match(text) or pytest.fail(f"no skill took {text!r}")).text

    assert said("change my alarm to 7:30").startswith("There was no alarm to change, so I set one. Alarm set for")
    assert [(r.hour, r.minute) for r in skills.reminders.alarms()] == [(7, 30)]
    assert said("move my alarm to eight thirty") == "Your alarm is now eight thirty am, not seven thirty am."
    assert [(r.hour, r.minute) for r in skills.reminders.alarms()] == [(8, 30)]
    said("set an alarm for 9 pm every monday")
    # the alarms are named soonest first, so their order depends on the hour the test runs at
    asked = said("move the alarm to 10")
    named = ("eight thirty am, nine pm every Monday.", "nine pm every Monday, eight thirty am.")
    assert any(asked.startswith(f"2 alarms are set: {both} Say which") for both in named), asked
    moved = said("move the 9 pm alarm to 9:30 pm")
    assert moved == "Your alarm is now nine thirty pm every Monday, not nine pm."
    assert sorted((r.hour, r.minute, r.days) for r in skills.reminders.alarms()) == [(8, 30, ()), (21, 30, (0,))]
    assert said("move the 6 am alarm to 7 am") == "There is no alarm at six am."
    assert said("move my alarm to 25:99") == "25:99 isn't a time on the clock."
    assert len(skills.reminders.alarms()) == 2


def test_another_timer_is_named_by_its_length_and_found_by_it() -> None:
    # NOTE: "Set another timer for 2 minutes." was "An another timer for 2 minutes", and "Cancel the 2 minute timer."
    # then asked which of the two was meant
    skills = _skills()

    def said(text: str) -> str:
        return skills.run(match(text) or pytest.fail(f"no skill took {text!r}")).text

    said("set a timer for 10 minutes")
    assert said("set another timer for 2 minutes") == "A timer for 2 minutes, starting now."
    assert said("how long is left on the 10 minute timer") == "10 minute timer has 10 minutes left."
    assert said("cancel the two minute timer") == "2 minute timer cancelled."
    assert said("add 5 minutes") == "The 10 minute timer now has 15 minutes left."  # the model promised it
    assert [t.seconds for t in skills.reminders.timers()] == [900]


def test_the_year_asked_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    # NOTE: "What year is it?" was told the day and the month: "Today is Sunday, December the sixth."
    year = datetime.datetime.now().year
    assert _skills().run(match("what year is it") or pytest.fail("not routed")).text == f"It's {year}."
    monkeypatch.setattr(clock_module, "ntp_synchronised", lambda: False)  # the hardware edge: no clock to trust
    monkeypatch.setattr(clock_module, "rtc_set_the_clock", lambda rtc=None: False)
    assert _skills(trust="auto").run(match("what year is it") or pytest.fail("not routed")).text == UNSET_CLOCK


def test_a_timer_named_by_its_place_is_the_one_in_that_place() -> None:
    # NOTE: "cancel the next timer" was told "There is no next timer." with one running
    skills = _skills()
    for length in ("5", "10", "3"):
        skills.run(match(f"set a timer for {length} minutes") or pytest.fail("not routed"))

    def said(text: str) -> str:
        return skills.run(match(text) or pytest.fail(f"not routed: {text}")).text

    assert said("how long is left on the next timer") == "3 minute timer has 3 minutes left."
    assert said("how long is left on the second timer") == "5 minute timer has 5 minutes left."
    assert said("cancel the last timer") == "3 minute timer cancelled."  # the one set last
    assert said("cancel the first timer") == "5 minute timer cancelled."
    assert said("cancel the third timer") == "There is no third timer."
    assert said("how long is left on my timers") == "10 minute timer has 10 minutes left."


def test_a_timer_is_cancelled_by_its_name_alone() -> None:
    # NOTE: "Cancel the rice." went to the model: "Sorry, I can't cancel the rice timer."
    skills = _skills()
    assert skills.route("Cancel the rice.") is None  # no timer of that name: not the box's
    for said in ("set a rice timer for 12 minutes", "set a pasta timer for 8 minutes"):
        skills.run(match(said) or pytest.fail(f"no skill took {said!r}"))
    call = skills.route("Cancel the rice.") or pytest.fail("left to the model")
    assert skills.run(call).text == "Rice timer cancelled."
    assert [t.name for t in skills.reminders.timers()] == ["pasta"]
    assert skills.route("stop the meeting") is None
