"""Speech-to-text with real models: the closed loop with our own voice, and Vosk on Korean speech."""

from __future__ import annotations

import difflib
import re
import subprocess
import unicodedata
from pathlib import Path

import numpy as np
import pytest

from daemon.box.wavfile import read_wav
from daemon.engines.stt import VoskSpeechToText
from daemon.modelstore.manifest import load_manifest, verify
from daemon.ports import AUDIO_RATE_HZ
from tests.conftest import feed

QUESTION = "What is the weather like today?"


def test_pocketsphinx_recovers_the_words_with_partials_and_timings(pocketsphinx, speech) -> None:  # type: ignore[no-untyped-def]
    audio = speech(QUESTION)
    stream = pocketsphinx.stream()
    partials = feed(stream, audio)
    result = stream.finish()
    assert result.text == "what is the weather like today"
    assert len(partials) >= 3 and partials[-1] in result.text  # it streamed, growing as speech arrived
    assert [w.text for w in result.words] == result.text.split()
    ends = [w.end_s for w in result.words]
    assert ends == sorted(ends) and result.words[0].start_s > 0.3 and ends[-1] <= len(audio) / AUDIO_RATE_HZ


def test_silence_gives_no_words(stt) -> None:  # type: ignore[no-untyped-def]
    stream = stt.stream()
    feed(stream, np.zeros(2 * AUDIO_RATE_HZ, np.int16))
    assert stream.finish().text == ""


def test_any_wav_format_reads_to_the_same_words(stt, speech, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import soundfile as sf

    audio = speech(QUESTION)
    src = tmp_path / "q16k.wav"
    sf.write(src, audio, AUDIO_RATE_HZ, subtype="PCM_16")
    variants = {
        "stereo-44k1-24bit.wav": ["-r", "44100", "-c", "2", "-b", "24"],
        "mono-22k05-8bit.wav": ["-r", "22050", "-b", "8"],
        "stereo-48k-float.wav": ["-r", "48000", "-c", "2", "-e", "floating-point", "-b", "32"],
    }
    for name, opts in variants.items():
        out = tmp_path / name
        subprocess.run(["sox", "-q", str(src), *opts, str(out)], check=True)
        stream = stt.stream()
        feed(stream, read_wav(out, AUDIO_RATE_HZ))
        words = set(re.findall(r"[a-z']+", stream.finish().text.lower()))
        assert len(words & set(QUESTION.lower().strip("?").split())) >= 5, (name, words)


@pytest.fixture(scope="module")
def korean() -> VoskSpeechToText:
    return VoskSpeechToText(verify(load_manifest().get("vosk-model-small-ko-0.22"), Path("/unused")))


def espeak_korean(text: str, path: Path) -> None:
    subprocess.run(["espeak-ng", "-v", "ko", "-s", "140", "-w", str(path), text], check=True)


def jamo(text: str) -> str:
    """Hangul decomposed into letters (jamo), so near-misses still count as partly right."""
    return "".join(c for c in unicodedata.normalize("NFD", text) if not c.isspace())


KOREAN = ["안녕하세요 반갑습니다", "오늘 날씨가 좋습니다", "대한민국의 수도는 서울입니다", "저는 학교에 갑니다"]


@pytest.mark.slow
def test_vosk_recognises_which_korean_sentence_was_said(korean: VoskSpeechToText, tmp_path: Path) -> None:
    recognised = 0
    for said in KOREAN:
        espeak_korean(said, tmp_path / "ko.wav")
        stream = korean.stream()
        partials = feed(stream, read_wav(tmp_path / "ko.wav", AUDIO_RATE_HZ))
        result = stream.finish()
        assert partials, "Vosk gave no partial results while audio streamed in"
        assert result.words and all(0 <= w.start_s < w.end_s for w in result.words)
        # espeak-ng's Korean is robotic and the model is small: ask which candidate the words match best.
        best = max(KOREAN, key=lambda c: difflib.SequenceMatcher(None, jamo(c), jamo(result.text)).ratio())
        recognised += best == said
    assert recognised >= 3


def test_vosk_hears_nothing_in_silence(korean: VoskSpeechToText) -> None:
    silent = korean.stream()
    feed(silent, np.zeros(AUDIO_RATE_HZ, np.int16))
    assert silent.finish().text == ""
