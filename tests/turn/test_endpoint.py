"""End of speech: trailing silence, a maximum length, and a timeout when nobody speaks."""

from __future__ import annotations

import pytest

from daemon.config import ListenConfig
from daemon.turn.endpoint import Endpointer

FRAME = 0.03


def run(pattern: list[tuple[bool, float]], **kwargs: object) -> tuple[str | None, float, Endpointer]:
    """Feed (voiced, seconds) runs; return the reason, when it fired, and the endpointer."""
    ep = Endpointer(ListenConfig(), **kwargs)  # type: ignore[arg-type]
    t = 0.0
    for voiced, seconds in pattern:
        for _ in range(round(seconds / FRAME)):
            t += FRAME
            if reason := ep.update(voiced, FRAME):
                return reason, round(t, 2), ep
    return None, t, ep


def test_trailing_silence_ends_the_utterance() -> None:
    reason, at, ep = run([(False, 0.5), (True, 1.5), (False, 2.0)])
    assert reason == "silence" and at == pytest.approx(3.0, abs=FRAME)  # 1.0 s after the last voiced frame
    assert abs(ep.speech_s - 1.5) < 0.05


def test_short_pauses_inside_a_question_do_not_end_it() -> None:
    reason, at, _ = run([(True, 1.0), (False, 0.4), (True, 1.0), (False, 1.5)])
    assert reason == "silence" and at == pytest.approx(3.4, abs=FRAME)


def test_clicks_are_not_speech_and_silence_times_out() -> None:
    reason, at, ep = run([(True, 0.06), (False, 2.0)] * 5)
    assert reason == "no-speech" and at == pytest.approx(5.0, abs=FRAME) and not ep.speech_started


def test_a_monologue_is_cut_at_the_maximum() -> None:
    reason, at, _ = run([(False, 0.3), (True, 60.0)])
    assert reason == "max-length" and at == pytest.approx(15.3, abs=FRAME)


def test_push_to_talk_ignores_pauses_until_released() -> None:
    reason, _, ep = run([(True, 1.0), (False, 3.0), (True, 1.0)], push_to_talk=True)
    assert reason is None and ep.speech_started


def test_follow_up_window_uses_its_own_timeout() -> None:
    reason, at, _ = run([(False, 10.0)], no_speech_timeout_s=2.0)
    assert reason == "no-speech" and at == pytest.approx(2.0, abs=FRAME)


@pytest.mark.parametrize("limit_s", [15.0, 60.0])
def test_a_five_minute_monologue_is_cut_at_max_utterance_s(limit_s: float) -> None:
    ep = Endpointer(ListenConfig(max_utterance_s=limit_s))
    t, reason = 0.0, None
    while t < 300.0 and reason is None:
        t += FRAME
        reason = ep.update(True, FRAME)
    assert reason == "max-length" and t == pytest.approx(limit_s, abs=FRAME)


def test_a_button_held_for_five_minutes_is_cut_at_max_utterance_s() -> None:
    reason, at, ep = run([(True, 100.0), (False, 100.0), (True, 100.0)], push_to_talk=True)
    assert reason == "max-length" and at == pytest.approx(15.0, abs=FRAME) and ep.speech_started
    reason, at, ep = run([(False, 300.0)], push_to_talk=True)
    assert reason == "max-length" and at == pytest.approx(15.0, abs=FRAME) and not ep.speech_started
