"""A long recording is heard piece by piece, cut at its pauses: it finishes, and the words keep their times."""

from __future__ import annotations

import itertools

import numpy as np

from daemon.cli.transcribe import MAX_PIECE_S, hear, pieces, voiced_frames
from daemon.engines.vad import WebRtcVad
from daemon.ports import AUDIO_RATE_HZ, Engines
from tests.conftest import Speech

QUESTION = "What is the capital of France?"


def test_a_long_recording_is_heard_in_pieces_at_its_pauses(engines: Engines, speech: Speech) -> None:
    silence = np.zeros(20 * AUDIO_RATE_HZ, np.int16)
    audio = np.concatenate([silence, speech(QUESTION), silence, speech("How many days are in a week?"), silence])
    heard = hear(audio, engines.stt, WebRtcVad(2))
    assert heard.pieces == 2  # the minute of silence is never handed to the recogniser
    # NOTE: every word of both, told by the words around the one tiny.en hears as "friends" on some CPUs ("France").
    assert {"capital", "days", "week"} <= {w.text for w in heard.words} and len(heard.words) == 13
    capital = next(w for w in heard.words if w.text == "capital")
    assert 20.0 < capital.start_s < 24.0  # times count from the start of the file
    week = next(w for w in heard.words if w.text == "week")
    assert week.start_s > 40.0


def test_speech_longer_than_a_piece_is_cut_at_a_quiet_moment(engines: Engines, speech: Speech) -> None:
    talk = np.concatenate([speech(QUESTION, lead_s=0.0, tail_s=0.1) for _ in range(30)])
    assert len(talk) > 1.5 * MAX_PIECE_S * AUDIO_RATE_HZ
    vad = WebRtcVad(2)
    ranges = pieces(talk, vad)
    assert len(ranges) >= 2 and all(b - a <= MAX_PIECE_S * AUDIO_RATE_HZ for a, b in ranges)
    frame = vad.frame_bytes // 2
    voiced = [k * frame for k, v in enumerate(voiced_frames(talk, vad)) if v]
    assert all(any(a <= at < b for a, b in ranges) for at in voiced)  # no speech is left out
    assert all(a1 >= b0 for (_, b0), (a1, _) in itertools.pairwise(ranges))  # nothing heard twice


def test_a_short_recording_is_heard_whole(engines: Engines, speech: Speech) -> None:
    audio = speech(QUESTION)
    assert pieces(audio, WebRtcVad(2)) == [(0, len(audio))]
