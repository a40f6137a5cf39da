"""A second opinion on a short utterance: Whisper base hears again what Whisper tiny.en heard as no command, on real
models and real speech (espeak-ng voices of the skills and answers evaluations, tune halves)."""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Iterator
from typing import Final

import pytest

from daemon.config import Config, SttConfig
from daemon.engines.load import load_stt
from daemon.engines.second_opinion import LONGEST_S, SecondOpinion
from daemon.engines.whisper import WhisperRecogniser
from daemon.lab.evaluation.voices import ESPEAK_VOICES, Voice
from daemon.modelstore.select import select
from daemon.ports import AUDIO_RATE_HZ, SpeechToText, Transcript
from daemon.skills.intents import match_as_heard
from tests.conftest import feed

pytestmark = pytest.mark.slow


def _espeak(name: str) -> Voice:
    return next(v for v in ESPEAK_VOICES if v.name == name)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


@pytest.fixture(scope="module")
def hearing(dev_config: Config) -> Iterator[SpeechToText]:
    engine = load_stt(dev_config)  # the dev profile: Whisper tiny.en, Whisper base's opinion on short requests
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def alone(dev_config: Config) -> Iterator[SpeechToText]:
    engine = load_stt(dataclasses.replace(dev_config, stt=SttConfig(second_opinion="none")))
    yield engine
    engine.close()


@pytest.fixture(scope="module")
def second_alone(dev_config: Config) -> dict[tuple[str, str], str]:
    """What the second recogniser alone hears of each clip below, heard once."""
    engine = load_stt(dataclasses.replace(dev_config, stt=SttConfig(model="whisper-base", second_opinion="none")))
    heard = {(said, voice): _heard(engine, said, voice) for said, voice in REQUESTS + QUESTIONS}
    engine.close()
    return heard


def _heard_right_by_the_second(second_alone: dict[tuple[str, str], str], said: str, voice: str) -> None:
    """Skip a clip the second recogniser alone mishears on this host's kernels (its words follow their rounding:
    "cancel the timer" by espeak-en-sc-170 was "Control the timer." on an AMD EPYC host): no opinion can mend it."""
    if _words(heard := second_alone[said, voice]) != _words(said):
        pytest.skip(f"Whisper base alone hears {heard!r} on this host")


def _heard(stt: SpeechToText, said: str, voice: str = "espeak-en-gb-150") -> str:
    stream = stt.stream()
    feed(stream, _espeak(voice).render(said))
    return stream.finish().text


REQUESTS: Final = [
    ("how many moons does jupiter have", "espeak-en-sc-170"),  # alone: "How many rooms does stupid to have?"
    ("how many minutes are in a day", "espeak-en-gb-150"),  # "How many minutes are in May?"
    ("how many seconds are in an hour", "espeak-en-us+m7-140"),  # "How many seconds I read an hour?"
    ("cancel the timer", "espeak-en-sc-170"),  # "Consult the timer."
]
QUESTIONS: Final = [
    ("Why does ice float?", "espeak-en-us+m7-140"),  # tiny.en alone: "Why don't I float?"
    ("What is the smallest bone in the human body?", "espeak-en-us+f3-180"),  # "...the smallest home in..."
    ("Is the baby asleep?", "espeak-en-sc-170"),  # "Is there maybe a sleep?"
]


def test_most_clips_are_heard_right_by_the_second_alone_so_the_tests_below_run(
    second_alone: dict[tuple[str, str], str],
) -> None:
    # NOTE: the tests below skip a clip the second mishears on this host; most must still run
    right = [said for (said, _), heard in second_alone.items() if _words(heard) == _words(said)]
    assert len(right) >= 5, right


@pytest.mark.parametrize(("said", "voice"), REQUESTS)
def test_a_request_the_first_heard_as_no_command_is_heard_by_the_second(
    hearing: SpeechToText, alone: SpeechToText, second_alone: dict[tuple[str, str], str], said: str, voice: str
) -> None:
    assert isinstance(hearing, SecondOpinion) and hearing.engine == "whisper+whisper"
    first = _heard(alone, said, voice)
    assert match_as_heard(first) is None, first
    _heard_right_by_the_second(second_alone, said, voice)
    heard = _heard(hearing, said, voice)
    assert _words(heard) == _words(said) and match_as_heard(heard) is not None, heard


@pytest.mark.parametrize("said", ["Who painted the Mona Lisa?", "Why is the sky blue?", "How far away is the moon?"])
def test_a_question_the_first_heard_right_is_left_as_it_heard_it(
    hearing: SpeechToText, alone: SpeechToText, said: str
) -> None:
    first = _heard(alone, said)
    assert _words(first) == _words(said), first
    assert _heard(hearing, said) == first


@pytest.mark.parametrize(("said", "voice"), QUESTIONS)
def test_a_question_the_first_misheard_is_the_second_s_when_the_judge_finds_it_likelier(
    hearing: SpeechToText, alone: SpeechToText, second_alone: dict[tuple[str, str], str], said: str, voice: str
) -> None:
    first = _heard(alone, said, voice)
    assert _words(first) != _words(said), first
    _heard_right_by_the_second(second_alone, said, voice)
    assert _words(_heard(hearing, said, voice)) == _words(said)


def test_without_a_judge_only_a_command_is_taken_from_the_second(dev_config: Config) -> None:
    def commands(text: str) -> bool:
        return match_as_heard(text) is not None

    base_path = select(dataclasses.replace(dev_config, stt=SttConfig(model="whisper-base")), "stt").path
    tiny = WhisperRecogniser(select(dev_config, "stt").path, commands=commands)
    both = SecondOpinion(tiny, WhisperRecogniser(base_path, commands=commands), commands)
    try:
        audio = _espeak("espeak-en-us+m7-140").render("Why does ice float?").tobytes()
        heard = tiny.transcribe(audio)
        assert _words(heard.text) != _words("Why does ice float?"), heard  # base hears it right (above)
        assert both.transcribe(audio) == heard
    finally:
        both.close()


class _Counted:
    """The real Whisper base, counting the utterances it is given."""

    def __init__(self, whisper: WhisperRecogniser) -> None:
        self.whisper, self.heard = whisper, 0
        self.engine = whisper.engine

    def transcribe(self, pcm: bytes, final: bool = True) -> Transcript:
        self.heard += 1
        return self.whisper.transcribe(pcm, final)

    def close(self) -> None:
        self.whisper.close()


def test_only_a_short_utterance_heard_as_no_command_is_heard_again(dev_config: Config) -> None:
    def commands(text: str) -> bool:
        return match_as_heard(text) is not None

    base_path = select(dataclasses.replace(dev_config, stt=SttConfig(model="whisper-base")), "stt").path
    base = _Counted(WhisperRecogniser(base_path, commands=commands))
    tiny = WhisperRecogniser(select(dev_config, "stt").path, commands=commands)
    both = SecondOpinion(tiny, base, commands)
    try:
        voice = _espeak("espeak-en-gb-150")
        long = voice.render("how many moons does jupiter have and how far away is it from the sun and from the earth")
        assert len(long) / AUDIO_RATE_HZ > LONGEST_S
        for said, again in (("set a timer for ten minutes", 0), ("why do cats purr", 1), (long, 1)):
            audio = voice.render(said) if isinstance(said, str) else said
            both.transcribe(audio.tobytes(), final=False)  # a live transcript is never heard again
            both.transcribe(audio.tobytes())
            assert base.heard == again, said
    finally:
        both.close()


def test_a_second_opinion_that_is_no_whisper_is_refused_and_the_first_hears_alone(
    dev_config: Config, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        engine = load_stt(dataclasses.replace(dev_config, stt=SttConfig(second_opinion="pocketsphinx-en-us")))
    try:
        assert engine.engine == "whisper" and not isinstance(engine, SecondOpinion)
        assert "a short request is heard by one recogniser only" in caplog.text
    finally:
        engine.close()


def test_words_the_second_cut_short_are_never_taken(hearing: SpeechToText) -> None:
    assert isinstance(hearing, SecondOpinion)
    whole, cut = Transcript("What is the capital of France?", (), -0.3), Transcript("What is the capital?", (), -0.2)
    assert hearing.believed(whole, cut) == whole
    other = Transcript("Why does ice float?", (), -0.3)  # a likelier question that is not a cut: taken
    assert hearing.believed(Transcript("Why don't I float?", (), -0.4), other) == other
