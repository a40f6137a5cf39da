"""Honest answers, never a guess: a request a skill understands but cannot do gets the skill's own plain answer, a
question only the internet could answer gets "I can't know that offline", and general questions still reach the
language model."""

from __future__ import annotations

import ast
import math

import pytest

from daemon.box.asking import SilentSink
from daemon.skills import calc, intents, unable
from daemon.skills.asked_for import HOW_LONG, WHAT_TIME
from daemon.skills.clock import BoxClock
from daemon.skills.honest import (
    DEVICES,
    NOT_ONLINE,
    NOTHING_TO_SNOOZE,
    OFFLINE,
    PERSONAL,
    SUN,
    TIMER_HOW,
    TIMER_LIMITS,
    VOLUME_LIMITS,
)
from daemon.skills.intents import match
from daemon.skills.reminders import MAX_TIMER_S, MIN_TIMER_S
from daemon.skills.replies import NO_TIMERS, Reply
from daemon.skills.skills import SNOOZE_WITHIN_S, Skills
from daemon.turn.volume import VolumeSink


def _skills() -> Skills:
    return Skills(BoxClock("system"), VolumeSink(SilentSink()), "boot-a", now_boot=lambda: 1000.0)


def _asked(skills: Skills, said: str) -> tuple[str, Reply]:
    """The skill `said` is routed to and its reply; fails when no skill takes it."""
    call = match(said)
    assert call is not None, f"no skill took {said!r}: it would go to the language model"
    return call.skill, skills.run(call)


TIME_OFF_THE_CLOCK = "isn't a time on the clock."

IMPOSSIBLE = [
    # Division by zero.
    ("what is 5 divided by 0", "calculate", "I can't divide by zero."),
    ("what's ten divided by zero", "calculate", "I can't divide by zero."),
    ("calculate 7 / 0", "calculate", "I can't divide by zero."),
    ("what is three over zero", "calculate", "I can't divide by zero."),
    ("what is zero divided by zero", "calculate", "I can't divide by zero."),
    # Roots of negatives.
    ("what is the square root of minus 4", "calculate", "Minus 4 has no real square root."),
    ("square root of negative nine", "calculate", "Minus 9 has no real square root."),
    ("what's the square root of -16", "calculate", "Minus 16 has no real square root."),
    # Results too large to say, never computed.
    ("what is 9 to the power of 999", "calculate", "That number is too big for me to say."),
    ("what is 10 to the power of 50", "calculate", "That number is too big for me to say."),
    ("what is a million factorial", "calculate", "That number is too big for me to say."),
    ("what's a billion times a billion", "calculate", "That number is too big for me to say."),
    ("what is 2.5 factorial", "calculate", "Only whole numbers from zero up have a factorial."),
    # Timers of zero, negative or absurd length.
    ("set a timer for minus 5 minutes", "timer_start", TIMER_LIMITS),
    ("set a timer for negative ten seconds", "timer_start", TIMER_LIMITS),
    ("set a timer for 0 minutes", "timer_start", TIMER_LIMITS),
    ("timer for zero seconds", "timer_start", TIMER_LIMITS),
    ("set a timer for 500 hours", "timer_start", TIMER_LIMITS),
    ("set a timer for a year", "timer_start", TIMER_LIMITS),
    ("set a 1000 hour timer", "timer_start", TIMER_LIMITS),
    # Impossible clock times.
    ("set an alarm for 25:99", "alarm_set", f"25:99 {TIME_OFF_THE_CLOCK}"),
    ("wake me up at 25:99", "alarm_set", f"25:99 {TIME_OFF_THE_CLOCK}"),
    ("set an alarm for seven seventy", "alarm_set", f"7:70 {TIME_OFF_THE_CLOCK}"),
    ("wake me up at nineteen pm", "alarm_set", f"19 pm {TIME_OFF_THE_CLOCK}"),
    ("set an alarm at 25 o'clock", "alarm_set", f"25:00 {TIME_OFF_THE_CLOCK}"),
    ("set the time to 25:99", "set_time", f"25:99 {TIME_OFF_THE_CLOCK}"),
    ("cancel the alarm at 7:70", "alarm_cancel", f"7:70 {TIME_OFF_THE_CLOCK}"),
    # Volume outside 0-100.
    ("set the volume to 500 percent", "volume", VOLUME_LIMITS),
    ("volume 150", "volume", VOLUME_LIMITS),
    ("set the volume to minus 5", "volume", VOLUME_LIMITS),
    ("turn the volume to 200%", "volume", VOLUME_LIMITS),
    ("set the volume to eleven out of ten", "volume", VOLUME_LIMITS),
    # A timer or alarm that does not exist.
    ("how long is left on the pasta timer", "timer_left", "There is no pasta timer."),
    ("cancel the pasta timer", "timer_cancel", "There is no pasta timer."),
    ("how much time is left on the timer", "timer_left", "No timers are running."),
    ("cancel the 7:30 alarm", "alarm_cancel", "There is no alarm at seven thirty."),
    ("cancel the alarm at 7:30", "alarm_cancel", "There is no alarm at seven thirty."),
    ("cancel my alarm", "alarm_cancel", "No alarms are set."),
]


@pytest.mark.parametrize(("said", "skill", "reply"), IMPOSSIBLE)
def test_an_impossible_request_gets_the_skills_plain_answer_and_changes_nothing(
    said: str, skill: str, reply: str
) -> None:
    skills = _skills()
    volume = skills.settings()
    assert _asked(skills, said) == (skill, Reply(reply))
    assert len(skills.reminders) == 0 and skills.settings() == volume  # nothing set, nothing changed


def test_the_timer_limits_said_are_the_limits_kept() -> None:
    skills = _skills()
    assert TIMER_LIMITS == "A timer has to be between 1 second and 7 days."
    assert (MIN_TIMER_S, MAX_TIMER_S) == (1, 7 * 86400)
    assert _asked(skills, "set a timer for 1 second")[1].text == "A timer for 1 second, starting now."
    assert _asked(skills, "set a timer for 7 days")[1].text == "A timer for 7 days, starting now."
    assert _asked(skills, "set a timer for 8 days")[1].text == TIMER_LIMITS
    assert [t.seconds for t in skills.reminders.timers()] == [1, MAX_TIMER_S]


def test_a_timer_or_alarm_that_exists_is_still_found_and_cancelled() -> None:
    skills = _skills()
    _asked(skills, "set a pasta timer for 8 minutes")
    _asked(skills, "set an alarm for 7:30 am")
    assert _asked(skills, "cancel the tea timer")[1].text == "There is no tea timer."
    assert _asked(skills, "cancel the 8:30 alarm")[1].text == "There is no alarm at eight thirty."
    assert _asked(skills, "cancel the pasta timer")[1].text == "Pasta timer cancelled."
    assert _asked(skills, "cancel the 7:30 alarm")[1].text == "Alarm cancelled."
    assert len(skills.reminders) == 0


def test_a_volume_in_range_is_still_set() -> None:
    skills = _skills()
    assert _asked(skills, "set the volume to 500 percent")[1].text == VOLUME_LIMITS
    assert skills.volume.level == 100
    assert _asked(skills, "set the volume to fifty percent")[1] == Reply("Volume 50.", changed=True)
    assert _asked(skills, "set the volume to 0 percent")[1].text == "Volume 0."


@pytest.mark.parametrize(
    "said",
    [
        "what is a billion factorial",
        "what is 9 to the power of 9 to the power of 9",
        "what is 99999 to the power of 99999",
    ],
)
def test_a_huge_sum_is_refused_at_once_never_computed(said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    factorials: list[int] = []
    powers: list[tuple[float, float]] = []
    factorial, power = math.factorial, calc._BINARY[ast.Pow]

    def counted_factorial(n: int) -> int:
        factorials.append(n)
        return factorial(n)

    def counted_power(a: float, b: float) -> float:
        powers.append((a, b))
        return power(a, b)

    monkeypatch.setattr(math, "factorial", counted_factorial)
    monkeypatch.setitem(calc._BINARY, ast.Pow, counted_power)
    intents._match.cache_clear()  # matched afresh, so what it computes is seen
    assert _asked(_skills(), said)[1].text == "That number is too big for me to say."
    assert all(n <= calc.MAX_FACTORIAL for n in factorials)
    assert all(b * math.log10(abs(a) or 1) <= calc.MAX_POWER_DIGITS for a, b in powers)  # none too big was computed


def test_sums_in_range_are_still_exact() -> None:
    skills = _skills()
    assert _asked(skills, "what is 5 factorial")[1].text == "That's 120."
    assert _asked(skills, "what is 10 to the power of 14")[1].text == "That's 100000000000000."
    assert _asked(skills, "what is 0 divided by 5")[1].text == "That's 0."
    assert _asked(skills, "what is the square root of 16")[1].text == "That's 4."


OFFLINE_QUESTIONS = [
    ("what is the weather like tomorrow", "weather"),
    ("what's the weather", "weather"),
    ("what's the weather like in paris", "weather"),
    ("is it going to rain tomorrow", "weather"),
    ("will it snow this weekend", "weather"),
    ("is it raining in glasgow", "weather"),
    ("what's the temperature outside", "weather"),
    ("do I need an umbrella today", "weather"),
    ("what's the forecast for the weekend", "weather"),
    ("is it muggy out there", "weather"),
    ("is it chilly this morning", "weather"),
    ("what's the news", "news"),
    ("read me the headlines", "news"),
    ("what's happening in the world today", "news"),
    ("who won the game last night", "sport"),
    ("what's the score", "sport"),
    ("did arsenal win last night", "sport"),
    ("what time is the game", "sport"),
    ("what are the football results", "sport"),
    ("what's the price of gold", "prices"),
    ("how much is bitcoin worth", "prices"),
    ("how is the stock market doing today", "prices"),
    ("what's the apple share price", "prices"),
    ("how much is 10 euros in dollars", "prices"),
    ("how many dollars in a pound", "prices"),
    ("what's on tv tonight", "tv"),
    ("what time is doctor who on", "tv"),
    ("how's the traffic on the m25", "traffic"),
    ("is there any traffic this morning", "traffic"),
    ("is my train delayed", "travel"),
    ("when is the next train to london", "travel"),
    ("is tesco open today", "opening"),
    ("what time does the bank close today", "opening"),
    ("can you look up the opening hours of the library", "opening"),
    ("who won the tour de france this year", "sport"),
    ("which book is number one on the bestseller list", "news"),
    ("is it a good day to hang the washing out", "weather"),
    ("how long is the wait at passport control", "travel"),
]


@pytest.mark.parametrize(("said", "topic"), OFFLINE_QUESTIONS)
def test_a_question_only_the_internet_could_answer_is_answered_honestly(said: str, topic: str) -> None:
    call = match(said)
    assert call is not None and call.args == {"topic": topic}
    assert _asked(_skills(), said) == ("offline", Reply(OFFLINE))


@pytest.mark.parametrize(
    "said", ["search the internet for cheap flights", "look it up online", "are you connected to the internet"]
)
def test_asked_to_go_online_it_says_what_it_can_do_instead(said: str) -> None:
    reply = _asked(_skills(), said)[1].text
    assert reply == NOT_ONLINE
    assert reply.startswith("I can't go online: I have no internet connection.") and "what I already know" in reply


@pytest.mark.parametrize(
    "said",
    [
        "what number am I thinking of",
        "where did I leave my keys",
        "where are my glasses",
        "has my parcel arrived yet",
        "who's at the front door",
        "when is my dentist appointment",
        "do I have any meetings tomorrow",
    ],
)
def test_a_question_about_the_users_own_things_or_plans_is_answered_honestly(said: str) -> None:
    assert _asked(_skills(), said) == ("offline", Reply(PERSONAL))
    assert PERSONAL.startswith("I can't know that")


@pytest.mark.parametrize(
    "said",
    [
        "where is the eiffel tower",
        "what are you thinking about",
        "who is at the door of a church",
    ],
)
def test_questions_near_the_personal_ones_still_reach_the_language_model(said: str) -> None:
    assert match(said) is None


@pytest.mark.parametrize(
    "said",
    ["what time does the sun set", "when is sunset tonight", "what time is sunrise tomorrow", "when does it get dark"],
)
def test_sunrise_and_sunset_are_not_guessed_where_the_box_does_not_know_where_it_is(said: str) -> None:
    assert _asked(_skills(), said) == ("offline", Reply(SUN))


@pytest.mark.parametrize(
    "said",
    [
        "did anyone call me today",
        "do I have any new messages",
        "how much money do I have in my account",
        "did I lock the front door",
        "what did my boss say this morning",
        "is anyone in the kitchen",
        "is anybody home",
        "how much do I weigh",
    ],
)
def test_the_users_calls_messages_money_and_home_are_not_guessed(said: str) -> None:
    assert _asked(_skills(), said) == ("offline", Reply(PERSONAL))


@pytest.mark.parametrize(
    "said",
    [
        "what time does the sun set in summer",
        "how long does it take to drive from london to paris",
        "who won the tennis at wimbledon in 1980",
        "how much does a blue whale weigh",
        "what is the most popular song of all time",
        "did the romans lock their doors",
        "is there a storm on jupiter",
        "who won the world cup in 2018",
        "which element is number one on the periodic table",
        "is there anyone in the world taller than him",
        "is it a leap year this year",
    ],
)
def test_questions_near_the_new_offline_ones_still_reach_the_language_model(said: str) -> None:
    call = match(said)
    assert call is None or call.skill != "offline", call


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("was there an earthquake in chile today", OFFLINE),
        ("what are people saying about the strike right now", OFFLINE),
        ("who scored for the home side last night", OFFLINE),
        ("is the ferry to calais running this morning", OFFLINE),
        ("is my daughter back from school yet", PERSONAL),
        ("how long did I sleep last night", PERSONAL),
        ("who got the nobel prize for peace this year", OFFLINE),
    ],
)
def test_a_question_about_the_moment_no_template_takes_is_answered_honestly(said: str, reply: str) -> None:
    skills = _skills()
    assert match(said) is None  # no template: worded unlike the offline topics
    call = skills.route(said)
    assert call is not None and skills.run(call) == Reply(reply)


@pytest.mark.parametrize(
    "said",
    [
        "what should I cook for dinner tonight",
        "can you suggest something to do this evening",
        "how are you today",
        "what did you learn today",
        "how do I get a stain out of a shirt now",
        "how many days until christmas now",
        "what's the weather like on mars today",
        "is it christmas yet",
        "I feel tired today",
        "tell me something interesting today",
    ],
)
def test_questions_that_name_the_moment_yet_are_the_models_still_reach_it(said: str) -> None:
    call = _skills().route(said)
    assert call is None or call.skill != "offline", call


def test_general_questions_reach_the_language_model_past_every_router() -> None:
    skills = _skills()
    taken = {said: call for said in GENERAL if (call := skills.route(said)) is not None}
    assert taken == {}


def test_a_conversion_in_pounds_is_still_a_conversion_not_an_exchange_rate() -> None:
    assert _asked(_skills(), "how much is 5 kilos in pounds") == ("convert", Reply("5 kilograms is 11.02 pounds."))


GENERAL = (  # "what is the capital of France", "spell necessary", "how far is the moon" and "what is the distance to
    # the sun" were here: facts now answer them exactly
    "who wrote Hamlet",
    "how many legs does a spider have",
    "what is the boiling point of water",
    "why is the sky blue",
    "what causes rain",
    "what is weather",
    "what's the difference between weather and climate",
    "how do hurricanes form",
    "what's the weather like in spain in april",
    "what is the weather like on mars",
    "what was the weather like during the last ice age",
    "how do weather forecasts work",
    "is it cold in antarctica",
    "is it safe to fly in a thunderstorm",
    "what is the temperature of the sun",
    "how hot is the sun",
    "what is the coldest place on earth",
    "what is the square root of a negative number",
    "why can't you divide by zero",
    "what happens if you divide by zero",
    "what is infinity divided by zero",
    "what is the biggest number",
    "what is a negative number",
    "why is minus times minus plus",
    "is zero a number",
    "who won the world cup in 1966",
    "what was the score in the 1966 world cup final",
    "who won the space race",
    "who won the battle of hastings",
    "how many minutes in a football match",
    "how long is a football match",
    "how many players are in a rugby team",
    "what is the highest score in cricket",
    "when was the stock market crash of 1929",
    "how does the stock market work",
    "what time does the stock market open",
    "what is a stock",
    "what is bitcoin",
    "why is gold so valuable",
    "how is the price of oil decided",
    "what is the price elasticity of demand",
    "why do prices go up",
    "why is the pound called sterling",
    "how many euros are there in circulation",
    "who invented television",
    "when was television invented",
    "how do traffic lights work",
    "why is there so much traffic in london",
    "when did the first train run",
    "how fast does a train go",
    "what time zone is new york in",
    "what is the time complexity of quicksort",
    "what is a timer",
    "who invented the alarm clock",
    "what is the volume of a sphere",
    "what is the speed of light",
    "how old is the earth",
    "how much does an elephant weigh",
    "how long does it take to boil an egg",
    "tell me a joke",
    "what's the plural of octopus",
    "what is the sun made of",
    "what is the population of the world",
    "what is a leap year",
    "how do you set a table",
)
"""General questions, many worded near a skill or the offline topics: each is for the language model. Written
before the offline templates were and kept as written (at first 2 of the 70 were taken: "is it cold in antarctica",
"how many euros are there in circulation"; the templates were narrowed, not the list)."""


def test_general_questions_still_reach_the_language_model() -> None:
    assert len(GENERAL) >= 30
    taken = {said: call for said in GENERAL if (call := match(said)) is not None}
    assert taken == {}  # the bound is 2 %; none is taken


@pytest.mark.parametrize(
    "said",
    [
        "turn on the garden lights",
        "Switch off the TV.",
        "can you lock the back door",
        "is the garage door open",
        "set the thermostat to 21 degrees",
        "dim the bedroom lights",
        "put the kettle on",
    ],
)
def test_a_device_the_box_cannot_reach_is_never_said_to_be_done(said: str) -> None:
    # NOTE: the model answered "I will lock the back door." to nothing it could lock: a claim, not an answer.
    assert _asked(_skills(), said) == ("offline", Reply(DEVICES))


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("play some music", unable.MUSIC),
        ("could you play hotel california by the eagles", unable.MUSIC),
        ("put on some reggae", unable.MUSIC),  # read as no device: music, which the box has none of
        ("I want to listen to the radio", unable.MUSIC),
        ("call my brother", unable.CALLS),
        ("phone the vet and ask when they close", unable.CALLS),
        ("send a text to anna", unable.CALLS),
        ("add apples to the shopping list", unable.LISTS),
        ("order me a large pepperoni pizza", unable.ORDERS),
        ("call me a taxi", unable.ORDERS),
        ("take a selfie", unable.PICTURES),
        ("navigate to the airport", unable.DIRECTIONS),
        ("where's the nearest bus stop", unable.DIRECTIONS),
        ("where is the nearest hospital", unable.DIRECTIONS),  # the model's before: it cannot know where it is
        ("find my phone", unable.GADGETS),
        ("can you speak french", unable.LANGUAGES),  # the model: "Yes, I can speak French." in an English voice
        ("do you speak spanish", unable.LANGUAGES),
    ],
)
def test_a_request_the_box_has_no_means_to_do_is_never_promised(said: str, reply: str) -> None:
    # NOTE: the model answered "Sure, I can play some music for you." with no music to play.
    assert _asked(_skills(), said) == ("offline", Reply(reply))


@pytest.mark.parametrize(
    ("said", "reply"),
    [
        ("set a timer", HOW_LONG),
        ("set a timer for the eggs", HOW_LONG),  # the model echoed "Set a timer for the eggs."
        ("could you start a pasta timer", HOW_LONG),
        ("set an alarm", WHAT_TIME),  # read by meaning as "switch off the alarm"
        ("set an alarm for tomorrow", WHAT_TIME),  # read by meaning as "have I set an alarm for tomorrow"
        ("wake me up on saturday", WHAT_TIME),
    ],
)
def test_a_timer_or_alarm_asked_for_with_no_length_or_time_is_asked_for_it(said: str, reply: str) -> None:
    # NOTE: the answer alone then completes the request (tests/skills/test_asked_for.py)
    assert _asked(_skills(), said) == ("remind_when", Reply(reply))


def test_time_added_with_no_timer_or_beyond_the_limits_is_said_so_and_a_pause_is_never_a_cancel() -> None:
    skills = _skills()
    assert _asked(skills, "add five minutes to my timer") == ("timer_add", Reply(f"{NO_TIMERS} {TIMER_HOW}"))
    _asked(skills, "set a tea timer for 3 minutes")
    assert _asked(skills, "add 10 days to the tea timer") == ("timer_add", Reply(TIMER_LIMITS))
    assert _asked(skills, "add 2 minutes to the pasta timer") == ("timer_add", Reply("There is no pasta timer."))
    _asked(skills, "set an egg timer for 6 minutes")
    several = _asked(skills, "add a minute to the timer")[1].text
    assert several.startswith("2 timers are running") and several.endswith("Which one should I change?")
    # NOTE: "pause the timer" was read by meaning as "stop timer", which a yes would have cancelled.
    skill, reply = _asked(skills, "pause the timer")
    assert skill == "timer_pause" and reply.text.endswith("Which one should I pause? Or say pause all timers.")
    assert len(skills.reminders.timers()) == 2 and not any(t.paused for t in skills.reminders.timers())


@pytest.mark.parametrize(("said", "minutes"), [("snooze", 9), ("snooze the alarm", 9), ("snooze for 5 minutes", 5)])
def test_a_snooze_after_something_rang_is_a_reminder_to_wake_up(said: str, minutes: int) -> None:
    # NOTE: the model answered "Sorry, but I can't assist with that."
    now = [1000.0]
    skills = Skills(BoxClock("system"), VolumeSink(SilentSink()), "boot-a", now_boot=lambda: now[0])
    _asked(skills, "set a timer for one minute")
    now[0] += 60
    skills.ringing(skills.due()[0])
    now[0] += 5 * 60
    assert _asked(skills, said) == (
        "timer_start",
        Reply(f"OK. In {minutes} minutes, I'll remind you to wake up.", changed=True),
    )
    assert [(t.seconds, t.note) for t in skills.reminders.timers()] == [(minutes * 60, "wake up")]


def test_a_snooze_with_nothing_rung_lately_is_said_so_and_sets_nothing() -> None:
    now = [1000.0]
    skills = Skills(BoxClock("system"), VolumeSink(SilentSink()), "boot-a", now_boot=lambda: now[0])
    assert _asked(skills, "snooze") == ("timer_start", Reply(NOTHING_TO_SNOOZE))
    _asked(skills, "set a timer for one minute")
    now[0] += 60
    skills.ringing(skills.due()[0])
    now[0] += SNOOZE_WITHIN_S + 1
    assert _asked(skills, "snooze for 5 minutes") == ("timer_start", Reply(NOTHING_TO_SNOOZE))
    assert skills.reminders.timers() == []


@pytest.mark.parametrize(
    ("said", "seconds"), [("set a timer for ten minutes", 600), ("wake me up in eight hours", 8 * 3600)]
)
def test_a_timer_with_its_length_is_still_set(said: str, seconds: int) -> None:
    call = match(said)
    assert call is not None and (call.skill, call.args["seconds"]) == ("timer_start", seconds)


@pytest.mark.parametrize(
    "said",
    [
        "let's play a game",
        "play twenty questions with me",
        "can you play rock paper scissors",
        "call me sam from now on",
        "let's call it a day",
        "what do you call a baby kangaroo",
        "order these numbers from smallest to largest",
        "where is the nearest star",
        "show me how to tie a tie",
        "read me a poem",
        "what's the best music to study to",
        "how do I make a phone call abroad",
        "how do you say thank you in spanish",
        "can you speak english",
    ],
)
def test_a_game_a_name_or_a_question_worded_near_such_a_request_stays_the_models(said: str) -> None:
    assert match(said) is None


@pytest.mark.parametrize(
    ("said", "skill"),
    [
        ("turn off the alarm", "alarm_cancel"),
        ("switch off the timer", "timer_cancel"),
        ("turn up the volume", "volume"),
        ("set the alarm to seven", "alarm_set"),
        ("is the bakery open right now", "offline"),
    ],
)
def test_the_box_s_own_things_and_shops_are_no_devices(said: str, skill: str) -> None:
    call = match(said)
    assert call is not None and call.skill == skill and call.args.get("topic") != "devices"
    assert match("turn it off") is None  # no device named: the conversation's


@pytest.mark.parametrize(
    ("said", "topic"),
    [
        ("Will the rain hold off until the school run?", "weather"),
        ("will the sunshine last", "weather"),
        ("So the match got postponed?", "sport"),
        ("has the game been called off", "sport"),
        ("What's Taylor Swift been up to lately?", "news"),
    ],
)
def test_the_weather_holding_a_match_called_off_and_someone_s_doings_lately_are_offline(said: str, topic: str) -> None:
    # The eighth set of unknowable questions, tune half: the model said "Yes, the match got postponed."
    call = match(said.lower().rstrip("?"))
    assert call is not None and (call.skill, call.args.get("topic")) == ("offline", topic)


@pytest.mark.parametrize("said", ["will the sun last forever", "what has the universe been doing for ages"])
def test_what_lasts_or_has_been_going_on_for_ages_is_the_models(said: str) -> None:
    assert match(said) is None
